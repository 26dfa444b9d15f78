"""``--runs=N`` of the walk child (fuzzfarm/engine/walk.py): it stops after exactly N runs even with
time left, as libFuzzer's ``-runs`` does (benchmarks/startup.py times a child with ``--runs=1``);
a negative N is one clear line and exit 2."""

from __future__ import annotations

import json
import subprocess
import sys

from fuzzfarm import harness as H
from fuzzfarm.harness import child as process


def _walk(tmp_path, *extra):
    info = H.get("checker")
    return subprocess.run([sys.executable, "-m", "fuzzfarm.engine.walk", "checker", "fixed", "--strategy=random",
                           "--seed=1", "--max-time=30", f"--artifacts={tmp_path}", f"--module={info.module}", *extra],
                          env=process.child_env({"FUZZFARM_VARIANT": "fixed"}), capture_output=True, text=True,
                          timeout=120)


def test_runs_stops_the_walk_after_exactly_that_many_runs(tmp_path):
    for n in (1, 3):
        p = _walk(tmp_path, f"--runs={n}")
        assert p.returncode == 0, p.stderr[-2000:]
        done = json.loads(p.stdout.strip().splitlines()[-1])
        assert done.get("done") and done["execs"] == n, done


def test_negative_runs_is_one_clear_line_and_exit_2(tmp_path):
    p = _walk(tmp_path, "--runs=-1")
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.strip().splitlines()[-1].endswith("--runs -1: give a number of runs >= 0 (0: no limit)")
