"""The libFuzzer flags every harness runs with: ``-len_control=0`` unless the command line sets
it, because the schedule lives in the front of the input and short inputs cannot steer it."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fuzzfarm.harness import LIBFUZZER_DEFAULTS, libfuzzer_args

ROOT = Path(__file__).resolve().parents[1]


def test_defaults_are_added_unless_given():
    assert "-len_control=0" in LIBFUZZER_DEFAULTS
    assert libfuzzer_args(["-runs=5", "corpus"]) == ["-runs=5", "corpus", *LIBFUZZER_DEFAULTS]
    assert libfuzzer_args(["-len_control=100", "-runs=5"]) == ["-len_control=100", "-runs=5"]
    assert libfuzzer_args([]) == list(LIBFUZZER_DEFAULTS)


def fuzz(tmp_path: Path, harness: str, seed: int, runs: int, *flags: str) -> tuple[int, bool]:
    """(executed units, crashed?) of a standalone atheris run from an empty corpus."""
    env = dict(os.environ, FUZZFARM_VARIANT="buggy", PYTHONHASHSEED="0", PYTHONUNBUFFERED="1")
    env.pop("FUZZFARM_TOLERATE", None)
    res = subprocess.run([sys.executable, str(ROOT / "harnesses" / harness), f"-runs={runs}", f"-seed={seed}",
                          "-print_final_stats=1", f"-artifact_prefix={tmp_path}/", *flags],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    log = res.stdout + res.stderr
    units = re.search(r"stat::number_of_executed_units:\s*(\d+)", log)
    assert units, log[-3000:]
    return int(units.group(1)), any(p.name.startswith("crash-") for p in tmp_path.iterdir())


# Measured with the default (seeds 1..3): checker 8-42 runs, cluster-builder 170-327 runs; with
# libFuzzer's own length control: checker 312-474, cluster-builder 7,956-11,212.
@pytest.mark.parametrize("harness, bound", [("checker_race.py", 200), ("cluster_builder_race.py", 1500)])
@pytest.mark.parametrize("seed", [1, 2])
def test_the_default_finds_the_seed_bugs_in_few_runs(tmp_path, harness, bound, seed):
    units, crashed = fuzz(tmp_path, harness, seed, bound)  # -runs is the bound: a regression fails in seconds
    assert crashed and units <= bound, units


def test_an_explicit_flag_wins(tmp_path):
    units, crashed = fuzz(tmp_path, "cluster_builder_race.py", 1, 1500, "-len_control=100")
    assert units == 1500 and not crashed  # libFuzzer's length control: 11,212 runs on seed 1
