"""benchmarks/hard_cases.py cannot rot: its two child modes (a walk from launch to the first
failure, a stress trial on real threads) run on the cheap hard case and print what the parent
reads. Figures are not checked; the full benchmark is ``python -m benchmarks.hard_cases``."""

import json
import subprocess
import sys

from benchmarks import hard_cases as HC


def _child(spec, case="hc17"):
    p = subprocess.run([sys.executable, "-m", "benchmarks.hard_cases", "--child", json.dumps(spec)],
                       env=HC._env(case), cwd=HC.C.ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    return [json.loads(ln) for ln in p.stdout.splitlines() if ln.startswith("{")]


def test_hard_cases_are_the_hard_examples_and_mix_is_picked_up_when_offered():
    assert HC.hard_cases() == ["hc16", "hc17", "hc18", "hc19"] and HC.hard_cases(["HC-17"]) == ["hc17"]
    assert HC.strategies()[-3:] == ["bytes", "random", "pct"]


def test_walk_child_reports_the_first_failure():
    out = _child({"mode": "walk", "strategy": "random", "seed": 1, "max_s": 20})
    assert out[0] == {"event": "ready"} and out[1]["found"] and out[1]["kind"] == "deadlock" and out[1]["runs"] >= 1


def test_stress_child_reports_runs_and_manifestations():
    (r,) = _child({"mode": "stress", "settings": [[1e-5, 1.0, 1e-4]], "wall_s": 1.0, "seed": 1})
    assert r["runs"] > 0 and 0 <= r["manifestations"] <= r["runs"]
    assert r["other_failures"] == {}  # HC-17 on threads can only deadlock (e.g. no runtime attribute missing)


def test_harness_list_is_split_and_an_unknown_case_is_a_clear_error():
    p = subprocess.run([sys.executable, "-m", "benchmarks.hard_cases", "--quick", "--harness", "hc17,hc99"],
                       cwd=HC.C.ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "not a hard case: hc99" in p.stderr and p.stdout == ""


def test_a_measuring_stress_trial_ends_at_its_first_manifestation():
    """The trials only ask "a hit within trial_s?": with stop_at_first the child stops at the
    first manifestation (and says after how many runs), instead of spending the rest of the trial."""
    (r,) = _child({"mode": "stress", "settings": [[1e-5, 1.0, 1e-4]], "wall_s": 20.0, "seed": 1,
                   "stop_at_first": True})
    assert r["manifestations"] == 1 and r["first_runs"] == r["runs"]
