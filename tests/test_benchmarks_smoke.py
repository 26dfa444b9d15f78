"""The benchmark suite cannot rot: run it once with the quick profile (issue 7) and check the
JSON it prints: every section present and not failed, the table's shape, and that both seed
bugs were found (by time_to_bug and end to end through the farm). Timings are not checked:
they are figures, not assertions.

The whole quick suite takes minutes (270 s of the default run), so it is in the slow tier; the
default run keeps a fast check of the suite's command line, JSON and table shape on two
sections (``--only go_stress,stress``, about 45 s: go_stress's quick profile is the checker twin
alone, 2 short trials, one fuzzfarm seed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from fuzzfarm.farm.embedded import redis_server_binary

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECTIONS = {"go_stress", "portfolio", "time_to_bug", "stress", "throughput", "minimization", "farm_scaling", "end_to_end",
            "redis_traffic", "startup", "hard_cases", "triage_pipeline"}
SEED_BUGS = {"checker", "cluster-builder"}


def _need_redis_server():
    if redis_server_binary() is None:
        if os.environ.get("FUZZFARM_REQUIRE_REDIS") == "1":
            pytest.fail("redis-server is not installed (FUZZFARM_REQUIRE_REDIS=1): run scripts/setup")
        pytest.skip("redis-server is not installed; scripts/test installs it")


def _shape(out: dict, sections: set[str]) -> None:
    assert {s["section"] for s in out["sections"]} == sections
    for s in out["sections"]:
        assert not s.get("failed"), s["data"].get("traceback", "")[-1500:]
        assert s["quick"] is True and s["profile"] == "quick"
        assert s["rows"], f"{s['section']} printed no rows"
        assert all(len(r) == 3 and all(isinstance(c, str) for c in r) for r in s["rows"])
    assert out["table"] and all(len(r) == 4 for r in out["table"])
    m = out["machine"]
    for key in ("cpu_model", "nproc", "mem_total_gb", "python", "atheris", "celery", "redis_server"):
        assert m.get(key) not in (None, ""), key
    assert out["command"].startswith("python -m benchmarks --quick")


@pytest.mark.timeout(600)
def test_quick_sections_print_the_suite_shape(go):
    """What CI keeps of the suite: it starts, runs two sections (real-Go stress, Python-thread
    stress) and prints the documented JSON; no figure is checked, only that each was measured."""
    _need_redis_server()
    p = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--json", "--no-doc", "--only",
                        "go_stress,stress"],
                       cwd=REPO, env={**os.environ, "PYTHONUNBUFFERED": "1"}, capture_output=True, text=True,
                       timeout=540)
    assert p.returncode == 0 and p.stdout.strip().startswith("{"), p.stderr[-3000:]
    out = json.loads(p.stdout)
    _shape(out, {"go_stress", "stress"})
    stress = _section(out, "stress")["data"]["harnesses"]
    assert {h["harness"] for h in stress} == SEED_BUGS and all(h["runs"] > 0 for h in stress)
    _go_stress_measured(_section(out, "go_stress"))


def _go_stress_measured(sec: dict) -> None:
    """Every case's rows are there and each side ran: real-Go trials, the fixed twin, fuzzfarm's seeds."""
    cases = sec["data"]["cases"]
    assert cases and len(sec["rows"]) == 8 * len(cases)
    for c in cases:
        assert {r[0] for r in sec["rows"] if r[0] == c["case"]} == {c["case"]}
        for fr in c["go"]["fresh"].values():  # JSON keys: "1", "2"
            assert fr["seconds"]["of"] == sec["data"]["budgets"]["trials"] and all(t["runs"] > 0 for t in fr["trials"])
        assert set(c["go"]["fresh"]) == set(c["go"]["fixed"]) == {"1", "2"}
        assert all(f["runs"] > 0 for f in c["go"]["fixed"].values())
        assert c["fuzzfarm"]["first_failure"]["of"] == len(sec["data"]["budgets"]["seeds"])
        assert c["ratio_first_failure"] and c["ratio_verified"]


@pytest.fixture(scope="module")
def suite():
    _need_redis_server()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "benchmarks", "--quick", "--json", "--no-doc"], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = proc.communicate(timeout=1500)
    except subprocess.TimeoutExpired:
        proc.terminate()  # SIGTERM: the suite stops the farms it started, then exits
        stdout, stderr = proc.communicate(timeout=60)
        pytest.fail(f"the quick suite took longer than 1500 s; stderr tail:\n{stderr[-3000:]}")
    p = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    assert p.stdout.strip().startswith("{"), f"no JSON (rc {p.returncode}); stderr tail:\n{p.stderr[-3000:]}"
    out = json.loads(p.stdout)
    failed = [s["section"] for s in out["sections"] if s.get("failed")]
    assert not failed, f"failed benchmarks {failed}: " + "; ".join(
        s["data"].get("traceback", "")[-1500:] for s in out["sections"] if s.get("failed"))
    assert p.returncode == 0, p.stderr[-3000:]
    return out


def _section(out, name):
    return next(s for s in out["sections"] if s["section"] == name)


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_shape(suite):
    _shape(suite, SECTIONS)


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_seed_bugs_found(suite):
    ttb = _section(suite, "time_to_bug")["data"]
    found = {r["harness"] for r in ttb["buggy"] if r["found"] > 0}
    assert SEED_BUGS <= found, f"seed bugs not found by any strategy: {SEED_BUGS - found}"
    assert {r["strategy"] for r in ttb["buggy"]} == {"bytes", "random", "pct"}
    for r in ttb["buggy"]:  # a found bug's reproducer replays as the seed bug
        assert r["replayed"] == r["found"], r
    # the fixed variants never show the seed bug
    assert ttb["fixed"]
    assert all(r["seed_bug_failures"] == 0 and r["runs"] > 0 and r["clean_runs"] >= 0 for r in ttb["fixed"])
    assert any("confidence" in r for r in ttb["fixed"])
    e2e = _section(suite, "end_to_end")["data"]["harnesses"]
    done = {h["harness"] for h in e2e if not h.get("error")
            and {"bucket", "downloadable", "verified", "replayed"} <= set(h["marks"])
            and h["bucket"]["reproducible"] is True}
    assert done == SEED_BUGS, [(h["harness"], h["strategy"], h.get("error"), h["marks"]) for h in e2e]
    ci = _section(suite, "end_to_end")["data"]["ci"]  # `fuzzfarm ci --duration D` per seed and length
    assert {c["harness"] for c in ci} == SEED_BUGS and all(c["rc"] in (0, 1) and c["wall_s"] > 0 for c in ci), ci


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_other_sections_measured(suite):
    _go_stress_measured(_section(suite, "go_stress"))
    stress = _section(suite, "stress")["data"]["harnesses"]
    assert {h["harness"] for h in stress} == SEED_BUGS and all(h["runs"] > 0 for h in stress)
    tp = _section(suite, "throughput")["data"]
    assert all(h["atheris"]["execs"] > 0 and h["uninstrumented"]["execs"] > 0 for h in tp["harnesses"])
    assert "available" in tp["runtime_bench"]
    mins = _section(suite, "minimization")["data"]["buckets"]
    # The minimizer's order is bytes first, then fewest preemptions: a schedule with fewer
    # preemptions may re-encode a few bytes longer, so (size) alone may grow, the key may not.
    assert mins and all(r["same_signature"] for b in mins for r in b["minimized"])
    assert all((r["preemptions_after"], r["size_after"]) <= (r["preemptions_before"], r["size_before"])
               for b in mins for r in b["minimized"]), mins
    sc = _section(suite, "farm_scaling")["data"]
    assert sc["bare"]["execs"] > 0 and [f["c"] for f in sc["farms"]] == [1, 2]
    assert all(f["execs"] > 0 and f["status"] == "done" for f in sc["farms"])
    rt = _section(suite, "redis_traffic")["data"]["campaigns"]
    assert len(rt) >= 2 and all(c["commands_per_s_per_worker"] > 0 for c in rt)
    owners = _section(suite, "redis_traffic")["data"]["by_owner"]
    assert owners and owners["job_ours_per_s"] > 0 and owners["node_celery_per_s"] > 0
    pf = _section(suite, "portfolio")["data"]
    mixed = {c["case"] for c in pf["cases"] if c["strategies"]["mix"]["found"] > 0}
    assert SEED_BUGS <= mixed, pf["cases"]
    assert all(set(c["strategies"]) >= {"mix", "pct:3", "random"} and c["stress"]["of"] > 0 for c in pf["cases"])
    assert pf["distinct"] and all(d["distinct"] > 0 for d in pf["distinct"])
    su = _section(suite, "startup")["data"]
    assert su["harnesses"] and all(set(per) == {"walk", "atheris", "atheris (first start)"} for per in su["harnesses"].values())
    assert all(r["median_s"] > 0 and r["cpu_median_s"] > 0 and r["imports"]["top"] and not r["imports"]["forbidden"]
               for per in su["harnesses"].values() for r in per.values())
