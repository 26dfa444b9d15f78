"""End to end: a real redis-server, 2 real Celery worker processes (queue ``fuzz`` and queue
``collect``, prefork pools) and the real ``fuzzfarm`` command in subprocesses.

All four campaigns (checker / cluster-builder, buggy / fixed; 2 jobs (fixed: 1) x a few seconds each)
are submitted at once by a module fixture; the tests then read what the farm made of them.
"""

from __future__ import annotations

import json
import os
import pickle
import time

import pytest

from fuzzfarm.farm.embedded import free_port
from fuzzfarm.farm.store import Store

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

HARNESSES = ("checker", "cluster-builder")
# The strategy each harness's campaigns use (the demo's choice, see fuzzfarm.cli.demo.DEMO_STRATEGY).
from fuzzfarm.cli.demo import DEMO_STRATEGY  # noqa: E402
DURATION = os.environ.get("FUZZFARM_E2E_DURATION", "4")
SETTLE_TIMEOUT_S = 600


def is_seed_bug(harness: str, b: dict) -> bool:
    """The seed bug of each harness (S1-S3 of docs/ports/clusterloader2.md#interleavings, T1-T3 of
    docs/ports/prow.md#interleavings)."""
    state = b.get("crash_state") or []
    if harness == "checker":
        return (b.get("kind") == "goroutine panic" and b.get("exc_class") == "TypeError"
                and bool(state) and state[0] == "ObjectChecker.stop")
    return (b.get("kind") in ("concurrent map writes", "concurrent map iteration and map write")
            and any("default_opts" in f for f in state))


SEED_KINDS = {"checker": ("goroutine panic",),
              "cluster-builder": ("concurrent map writes", "concurrent map iteration and map write",
                                  "concurrent map read and map write")}


# Fewest preemptions each seed bug needs (measured: the nil cancel of checker one at most; the
# prow T1 concurrent map writes two, see tests/collector/test_schedule_minimization.py).
PREEMPTION_FLOOR = {"checker": 1, "cluster-builder": 2}


@pytest.fixture(scope="module")
def campaigns(farm, cli):
    """Submit buggy then fixed campaigns of both harnesses; wait until every one is triaged.
    Returns {(harness, variant): {"id", "submitted", "first_artifact_s", "summary"}}."""
    st = Store(farm.url)
    out = {}
    for variant in ("buggy", "fixed"):
        for h in HARNESSES:
            t0 = time.monotonic()
            # fixed: one job is enough to see the farm report no seed bug there (the fix's own evidence
            # is each buggy bucket's fix check; the long fixed-variant fuzz runs are slow tests)
            cid = cli.json("submit", h, "--variant", variant, "--jobs", "2" if variant == "buggy" else "1",
                           "--duration", DURATION, "--strategy", DEMO_STRATEGY[h])["campaign"]
            out[(h, variant)] = {"id": cid, "submitted": t0, "first_artifact_s": None}
    deadline = time.monotonic() + SETTLE_TIMEOUT_S
    while True:
        pending = False
        for key, c in out.items():
            if c["first_artifact_s"] is None:
                if any(st.artifact(b) for b in st.campaign_bucket_ids(c["id"])):
                    c["first_artifact_s"] = round(time.monotonic() - c["submitted"], 1)
            c["summary"] = st.campaign_summary(c["id"])
            pending |= not c["summary"]["settled"]
        if not pending:
            break
        if time.monotonic() > deadline:
            logs = "\n".join(w.log_text()[-3000:] for w in farm.workers)
            pytest.fail(f"campaigns not settled after {SETTLE_TIMEOUT_S} s: "
                        f"{ {k: v['summary'] for k, v in out.items()} }\n{logs}")
        time.sleep(0.5)
    report = {f"{h}/{v}": {"campaign": c["id"], "first_artifact_s": c["first_artifact_s"],
                           "settled_s": round(time.monotonic() - c["submitted"], 1),
                           "execs": c["summary"]["execs"], "crashes": c["summary"]["crashes"],
                           "buckets": c["summary"]["buckets"]} for (h, v), c in out.items()}
    print("\nE2E campaigns:", json.dumps(report, indent=1))
    if os.environ.get("FUZZFARM_E2E_REPORT"):
        with open(os.environ["FUZZFARM_E2E_REPORT"], "w") as f:
            json.dump(report, f, indent=1)
    return out


@pytest.fixture(scope="module")
def cli(farm, tmp_path_factory):
    from farm_fixtures import CLI
    return CLI(farm.url, str(tmp_path_factory.mktemp("cli")))


@pytest.mark.parametrize("harness", HARNESSES)
def test_buggy_campaign_finds_the_seed_bug_minimized_verified_fix_checked(campaigns, cli, harness):
    c = campaigns[(harness, "buggy")]
    assert c["summary"]["status"] == "done", c["summary"]
    buckets = cli.json("crashes", c["id"])
    seed = [b for b in buckets if is_seed_bug(harness, b)]
    assert seed, f"no seed-bug bucket for {harness}: {buckets}"
    for b in seed:
        assert b["state"] == "done", b
        # smaller: fewer preemptions whenever the input has more than the bug needs (the measured
        # floor); never more
        assert b["minimized_size"] > 0 and b["preemptions_after"] <= b["preemptions_before"], b
        if b["preemptions_before"] > PREEMPTION_FLOOR[harness]:
            assert b["preemptions_after"] < b["preemptions_before"], b
        assert b["reproducible"] is True and b["verify_ok"] == b["verify_n"] == 10 and not b["flaky"], b
        assert b["fix_variant"] == "fixed" and b["fixed"] is True and b["fix_verdict"] == "fixed", b
        names = [c["name"] for c in b["fix_evidence"]["checks"]]
        assert names[0] == "reproducer" and "schedules (random)" in names and "schedules (pct)" in names, b
        assert b["fix_schedules"] == b["fix_evidence"]["schedules_tried"] > 0, b
        # the exhaustive search's line is there, and says "proven" only for an exhausted search
        assert b["fix_proof_line"] and b["fix_proof"]["bound"] == 2, b
        assert ("proven up to 2 preemptions" in b["fix_proof_line"]) == bool(b["fix_proof"]["exhausted"]), b
        assert b["count"] >= 1
    # every bucket of the campaign was triaged to the end
    assert all(b["state"] == "done" for b in buckets), buckets
    assert c["first_artifact_s"] is not None


@pytest.mark.parametrize("harness", HARNESSES)
def test_download_and_replay_from_the_files_alone(campaigns, cli, harness, tmp_path):
    c = campaigns[(harness, "buggy")]
    bucket = next(b for b in cli.json("crashes", c["id"]) if is_seed_bug(harness, b))
    bid = bucket["id"]
    d = tmp_path / bid
    p = cli("download", bid, "-o", str(d))
    assert p.returncode == 0, p.stderr
    assert (d / "MANIFEST.json").exists()
    # Redis is not needed to replay: point the command at a port where nothing listens.
    offline = {"FUZZFARM_REDIS_URL": f"redis://127.0.0.1:{free_port()}/0"}
    p = cli("replay", str(d), env=offline)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "fails as recorded" in p.stdout
    r = json.loads(cli("replay", str(d), "--json", env=offline).stdout)
    assert r["verdict"] == "fails as recorded" and r["outcome"]["kind"] == bucket["kind"]
    assert r["outcome"]["trace"]
    # the fix holds for the reproducer
    p = cli("replay", str(d), "--variant", "fixed", env=offline)
    assert p.returncode == 0, p.stdout + p.stderr
    # a tampered file is caught by its sha256
    (d / "input.min").write_bytes(b"\x00" + (d / "input.min").read_bytes())
    p = cli("replay", str(d), env=offline)
    assert p.returncode == 2 and "input.min" in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr


@pytest.mark.parametrize("harness", HARNESSES)
def test_fixed_campaign_has_no_seed_bug(campaigns, cli, harness):
    c = campaigns[(harness, "fixed")]
    assert c["summary"]["status"] == "done", c["summary"]
    assert c["summary"]["execs"] > 0
    buckets = cli.json("crashes", c["id"])
    assert not [b for b in buckets if b["kind"] in SEED_KINDS[harness]], buckets


def test_status_and_tables(campaigns, cli):
    rows = cli.json("status")
    ids = {r["id"] for r in rows}
    assert {c["id"] for c in campaigns.values()} <= ids
    c = campaigns[("checker", "buggy")]
    s = cli.json("status", c["id"])
    assert s["status"] == "done" and len(s["jobs"]) == 2 and all(j["state"] == "done" for j in s["jobs"])
    assert s["execs"] > 0 and s["crashes"] >= 1
    p = cli("crashes", c["id"], env={"COLUMNS": "250"})
    # the crash state in Go's terms: upstream's function and file.go:line
    assert p.returncode == 0 and "objectChecker.Stop" in p.stdout, p.stdout
    assert "wait_for_controlled_pods.go:713" in p.stdout, p.stdout
    seed = [b for b in cli.json("crashes", c["id"]) if is_seed_bug("checker", b)]
    assert seed and all(b["starvation_s"] is not None and b["starvation_s"] <= 0.1 for b in seed), seed
    p = cli("status")
    assert p.returncode == 0 and c["id"] in p.stdout


# ---- errors: one line on stderr, non-zero exit, no hang ----------------------------------------
def _one_line_error(p, *needles):
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    lines = [ln for ln in p.stderr.splitlines() if ln.strip() and not ln.startswith("INFO:")]
    assert len(lines) == 1, p.stderr
    for n in needles:
        assert n in lines[0], lines[0]


def test_unknown_harness(cli):
    _one_line_error(cli("submit", "no-such-harness"), "unknown harness 'no-such-harness'", "checker")


def test_unknown_bucket(cli, tmp_path):
    _one_line_error(cli("download", "bdoesnotexist", "-o", str(tmp_path / "x")), "unknown bucket", "fuzzfarm crashes")
    assert not (tmp_path / "x").exists()


def test_unknown_campaign(cli):
    _one_line_error(cli("crashes", "cnope"), "unknown campaign")


# A non-positive --jobs or --duration: tests/test_cli_usage_errors.py (said before Redis is asked).


def test_redis_down_is_fast_and_masked(cli):
    url = f"redis://:pa55word-xyz@127.0.0.1:{free_port()}/0"
    for args in (["status"], ["submit", "checker"], ["crashes"], ["download", "b1", "-o", "x"]):
        t0 = time.monotonic()
        p = cli(*args, env={"FUZZFARM_REDIS_URL": url})
        assert time.monotonic() - t0 < 15
        _one_line_error(p, "cannot reach Redis", "redis://:***@127.0.0.1")
        assert "pa55word-xyz" not in p.stderr + p.stdout


# ---- the worker side ---------------------------------------------------------------------------
def test_version_skew_is_refused_by_the_worker(farm):
    from fuzzfarm.farm import configure
    from fuzzfarm.farm.tasks import submit_campaign
    configure(farm.url)
    st = Store(farm.url)
    cid = submit_campaign(st, {"harness": "checker", "variant": "buggy", "strategy": "bytes", "jobs": 1,
                               "duration_s": 2.0, "harness_hash": "f" * 64, "version": "0.0.0"})
    deadline = time.monotonic() + 120
    while st.campaign_summary(cid)["status"] not in ("done", "failed") and time.monotonic() < deadline:
        time.sleep(0.3)
    s = st.campaign_summary(cid)
    # no worker has the hash: handed back (FUZZFARM_SKEW_HANDBACKS, farm_fixtures) then failed with one line
    assert s["status"] == "failed" and s["execs"] == 0, s
    assert s["errors"] == [s["errors"][0]] and s["errors"][0].startswith(
        "harness checker: no worker has hash ffffffffffff…; workers have "), s


class _Evil:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_pickled_message_is_refused_never_run(farm, tmp_path):
    """accept_content=['json']: a pickle on the queue is logged and dropped, its payload never
    unpickled (unpickling it would create a file)."""
    from kombu import Connection
    marker = tmp_path / "pwned"
    body = pickle.dumps(((_Evil(str(marker)),), {}, {}))
    with Connection(farm.url) as conn:
        conn.default_channel.basic_publish(
            conn.default_channel.prepare_message(body, content_type="application/x-python-serialize",
                                                 content_encoding="binary",
                                                 headers={"task": "fuzzfarm.intake", "id": "evil-pickle-1",
                                                          "lang": "py", "argsrepr": "", "kwargsrepr": ""},
                                                 properties={"delivery_tag": "evil-1"}),
            exchange="", routing_key="collect")
    collector = next(w for w in farm.workers if "collect" in w.queues)
    deadline = time.monotonic() + 30
    while "untrusted content" not in collector.log_text() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert "untrusted content" in collector.log_text()
    assert not marker.exists()
    with Connection(farm.url) as conn:
        assert conn.default_channel.client.llen("collect") == 0
    assert collector.alive()


# `submit --wait` (live progress, then the buckets, exit 1 on a find) is the README's command:
# tests/e2e/test_demo_e2e.py runs it as written.


def test_harnesses(cli):
    rows = {r["name"]: r for r in cli.json("harnesses")}
    for h in HARNESSES:
        assert {"buggy", "fixed"} <= set(rows[h]["variants"]) and len(rows[h]["source_hash"]) == 64
