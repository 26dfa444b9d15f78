"""`fuzzfarm explore`: exit codes, the reproducer file, and words that match what was searched."""

import json
import os
import subprocess
import sys

from fuzzfarm.harness.runone import outcome


def _explore(tmp_path, *args, example="hc03"):
    env = dict(os.environ, FUZZFARM_EXAMPLE=example)
    return subprocess.run([sys.executable, "-m", "fuzzfarm.cli", "explore", "examples", *args], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)


def test_buggy_case_exit_1_with_a_replayable_reproducer(tmp_path, monkeypatch):
    p = _explore(tmp_path, "--variant", "buggy", "-o", "cx.bin")
    assert p.returncode == 1, p.stderr
    assert "counterexample with 1 preemption(s)" in p.stdout and "proven" not in p.stdout
    # the lock-order pair is shown as the cycle's two goroutines in Go's names, not as a call chain
    line = next(ln for ln in p.stdout.splitlines() if "deadlock!" in ln)
    assert "in the lock cycle " in line and " < " not in line, line
    assert "WatchFactory.removeHandler (factory.go:240)" in line and "handleLocalPodSelectorDelFuncOld" in line, line
    monkeypatch.setenv("FUZZFARM_EXAMPLE", "hc03")
    res = outcome("examples", "buggy", (tmp_path / "cx.bin").read_bytes())
    assert res["failed"] and res["kind"] == "deadlock"


def test_fixed_case_exhausted_exit_0_and_budget_exit_3(tmp_path):
    p = _explore(tmp_path, "--variant", "fixed", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["exhausted"] and d["proven"] and d["bound"] == 2 and d["schedules"] > 1
    assert d["verdict"].startswith("proven up to 2 preemptions for this scenario")
    # the reduction's proof says what it rests on, in the words the user reads (issue 29)
    from fuzzfarm.engine.explore import ASSUMPTION
    assert d["verdict"].endswith(ASSUMPTION) and d["reduction"]
    p = _explore(tmp_path, "--variant", "fixed", "--no-reduction")
    assert p.returncode == 0, p.stderr
    assert "proven up to 2 preemptions" in p.stdout and "no reduction)" in p.stdout and "assuming" not in p.stdout
    p = _explore(tmp_path, "--variant", "fixed", "--max-schedules", "5")
    assert p.returncode == 3, p.stderr
    assert "not exhausted" in p.stdout and "proven up to 2" not in p.stdout
    # what it may claim: the levels it finished (here 0 preemptions), never the bound
    assert "proven only without preemptions: all " in p.stdout


def test_bad_usage_is_one_line_exit_2(tmp_path):
    p = _explore(tmp_path, "--preemption-bound", "-1")
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "--preemption-bound" in p.stderr
    p = _explore(tmp_path, "--input", "missing.bin")
    assert p.returncode == 2 and "cannot read --input" in p.stderr
