"""Bad input, each with one clear error naming the cause and what to do, while the worker and
the other jobs keep running: unknown harness, harnesses that fail to import (syntax error,
missing dependency), a harness that hangs (-> a ``timeout`` bucket), one that eats memory
(-> an ``oom`` bucket), an oversized input (crash intake and ``replay``), a corrupt or truncated
downloaded artifact, a reproducer recorded with another fuzzfarm version / harness hash.

(The CLI side of unknown harness, zero/negative --jobs/--duration, Redis down and worker-side
version skew are in tests/e2e/test_farm_e2e.py.)"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys

import pytest

import faultlib
from fuzzfarm.farm import store as S
from fuzzfarm.engine import MAX_INPUT_BYTES
from fuzzfarm.farm import tasks


def _one_line(p: subprocess.CompletedProcess, *needles: str) -> str:
    lines = [ln for ln in p.stderr.splitlines() if ln.strip() and ln.startswith("fuzzfarm: error")]
    assert p.returncode == 2 and len(lines) == 1, (p.returncode, p.stderr[-2000:])
    assert "Traceback" not in p.stderr
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


def _cli(url: str, cwd, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "FUZZFARM_REDIS_URL": url, "PYTHONPATH": faultlib.WORKER_ENV["PYTHONPATH"],
           "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "fuzzfarm.cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=str(cwd), env=env)


@pytest.fixture(scope="module")
def bad(fault_farm):
    """All the bad campaigns at once, next to a good one; wait until everything is settled."""
    with faultlib.publishing_to(fault_farm.url) as st:
        st.r.flushdb()
        c = {
            "good": faultlib.submit(st, "ff-crashy", "fixed", duration=3),
            # 6 s, not 3: the first atheris start on a cold instrumented-code cache took most of
            # 3 s under a loaded full run, and the job then found no crash (its bucket was missing)
            "crashy": faultlib.submit(st, "ff-crashy", duration=6),
            "unknown": faultlib.submit(st, "no-such-harness", harness_hash_="0" * 64),
            "syntax": faultlib.submit(st, "ff-syntax"),
            "nodep": faultlib.submit(st, "ff-nodep"),
            "hang": faultlib.submit(st, "ff-hang", duration=5),
            "hog": faultlib.submit(st, "ff-hog", duration=4),
        }
        # an oversized crash report (the engine never sends one; a buggy or hostile reporter might)
        big = b"C" * (MAX_INPUT_BYTES + 1)
        sha, _ = st.report_crash(c["crashy"], 0, "ff-crashy", "buggy", big)
        tasks.enqueue_intake(c["crashy"], "ff-crashy", "buggy", sha)
        faultlib.wait_until(lambda: all(faultlib.campaign_settled(st, cid) for cid in c.values()), 240,
                            "every bad-input campaign to settle")
        yield st, c, sha


def test_good_job_and_worker_unaffected(bad, fault_farm):
    st, c, _ = bad
    assert faultlib.job_states(st, c["good"]) == [S.JOB_DONE]
    assert faultlib.job_states(st, c["crashy"]) == [S.JOB_DONE]
    assert all(w.alive() for w in fault_farm.workers)
    assert st.campaign_summary(c["good"])["execs"] > 0


def test_unknown_harness_on_the_worker(bad):
    st, c, _ = bad
    (err,) = st.campaign_summary(c["unknown"])["errors"]
    assert st.job(c["unknown"], 0)["state"] == S.JOB_FAILED
    assert "unknown harness 'no-such-harness'" in err and "installed harnesses:" in err and "ff-crashy" in err


@pytest.mark.parametrize("name, needles", [
    ("syntax", ("harness 'ff-syntax'", "SyntaxError", "fix the harness")),
    ("nodep", ("harness 'ff-nodep'", "No module named 'fuzzfarm_faulttest_no_such_module'", "install its dependencies")),
])
def test_harness_failing_to_import_fails_the_job_clearly(bad, name, needles):
    st, c, _ = bad
    (err,) = st.campaign_summary(c[name])["errors"]
    assert st.job(c[name], 0)["state"] == S.JOB_FAILED
    for n in needles:
        assert n in err, err


@pytest.mark.parametrize("harness, needles", [
    ("ff-syntax", ("harness 'ff-syntax'", "SyntaxError", "fix the harness")),
    ("ff-nodep", ("harness 'ff-nodep'", "No module named 'fuzzfarm_faulttest_no_such_module'", "install its dependencies")),
])
def test_harness_failing_to_import_is_one_error_for_submit_wait(bad, fault_farm, tmp_path, harness, needles):
    # the submitter never imports harness code (nor does a worker's own process): the fuzzer
    # process the job starts fails, and `submit --wait` ends with that cause
    _one_line(_cli(fault_farm.url, tmp_path, "submit", harness, "--wait", "--timeout", "120"), "failed", *needles)


@pytest.mark.parametrize("name, kind", [("hang", "timeout"), ("hog", "oom")])
def test_hang_and_memory_hog_become_their_own_buckets(bad, name, kind):
    st, c, _ = bad
    s = st.campaign_summary(c[name])
    assert faultlib.job_states(st, c[name]) == [S.JOB_DONE], s["errors"]  # not a dead worker, not a failed job
    kinds = {st.bucket(b)["kind"] for b in st.campaign_bucket_ids(c[name])}
    assert kinds == {kind}, kinds
    (bid,) = st.campaign_bucket_ids(c[name])
    b = st.bucket(bid)
    assert b["state"] == S.B_DONE and b["libfuzzer_artifact"] == kind and st.artifact(bid)


def test_oversized_crash_report_is_refused_clearly(bad):
    st, c, sha = bad
    crash = st.crash("ff-crashy", "buggy", sha)
    assert crash["status"] == "intake failed" and not crash.get("bucket")
    assert "over the" in crash["error"] and "limit" in crash["error"], crash["error"]
    assert st.r.sismember(S.P + f"campaign:{c['crashy']}:intaken", sha)  # the campaign does not wait for it
    assert all(sha not in st.bucket_inputs(b) for b in st.bucket_ids())


@pytest.fixture(scope="module")
def downloaded(bad, fault_farm, tmp_path_factory):
    """The ff-crashy bucket's reproducer, downloaded and replayed intact once."""
    st, c, _ = bad
    (bid,) = st.campaign_bucket_ids(c["crashy"])
    d = tmp_path_factory.mktemp("download")
    p = _cli(fault_farm.url, d, "download", bid, "-o", str(d / "repro"))
    assert p.returncode == 0, p.stderr
    p = _cli(fault_farm.url, d, "replay", str(d / "repro"), "-q")
    assert p.returncode == 1 and "fails as recorded" in p.stdout, (p.stdout, p.stderr)
    return d / "repro"


@pytest.fixture
def repro(downloaded, tmp_path):
    """A copy of the downloaded reproducer to damage."""
    return shutil.copytree(downloaded, tmp_path / "repro")


def _rewrite(d, name: str, data: bytes) -> None:
    """Change a file and its manifest entry (a consistent but different reproducer)."""
    (d / name).write_bytes(data)
    m = json.loads((d / "MANIFEST.json").read_text())
    m["files"][name] = hashlib.sha256(data).hexdigest()
    (d / "MANIFEST.json").write_text(json.dumps(m))


@pytest.mark.parametrize("damage", ["truncated", "corrupt", "missing"])
def test_corrupt_or_truncated_artifact_is_refused_on_replay(repro, fault_farm, tmp_path, damage):
    f = repro / "input.min"
    data = f.read_bytes()
    if damage == "truncated":
        f.write_bytes(data[:-1])
    elif damage == "corrupt":
        f.write_bytes(bytes([data[0] ^ 0xFF]) + data[1:])
    else:
        f.unlink()
    line = _one_line(_cli(fault_farm.url, tmp_path, "replay", str(repro)), "input.min", "download")
    assert ("sha256" in line) or damage == "missing", line


def test_oversized_input_is_refused_on_replay(repro, fault_farm, tmp_path):
    _rewrite(repro, "input.min", b"C" * (MAX_INPUT_BYTES + 1))
    _one_line(_cli(fault_farm.url, tmp_path, "replay", str(repro)), "bytes", "limit")


def test_other_version_or_harness_hash_warns_and_still_replays(repro, fault_farm, tmp_path):
    r = json.loads((repro / "repro.json").read_text())
    r["fuzzfarm_version"] = "0.0.1-old"
    r["harness_hash"] = "0" * 64
    _rewrite(repro, "repro.json", json.dumps(r).encode())
    p = _cli(fault_farm.url, tmp_path, "replay", str(repro), "-q")
    assert p.returncode == 1 and "fails as recorded" in p.stdout, (p.stdout, p.stderr)
    warnings = [ln for ln in p.stderr.splitlines() if "warning" in ln]
    assert len(warnings) == 2, p.stderr
    assert "0.0.1-old" in warnings[0] and "replaying anyway" in warnings[0]
    assert "source hash" in warnings[1] and "replaying anyway" in warnings[1]
