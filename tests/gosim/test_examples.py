"""The docs/CASES.md bugs as scenarios: every buggy form is found, every fixed form never fails.

Bounds: runs to the first failure of each buggy form were measured for seeds 1..10 (random,
pct) and seeds 1..5 (atheris, ``bytes``) -- see MEASURED below and the report in the runtime
issue; each test asserts 5x the worst measured seed (at least 10 runs), so a runtime change
that makes a bug harder to reach fails loudly rather than silently.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

import pytest

from fuzzfarm import examples, gosim
from fuzzfarm.strategies import BytesStrategy, PCTStrategy, RandomStrategy

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HARNESS = os.path.join(ROOT, "harnesses", "examples_race.py")
ALL_CASES = examples.all_cases()
# hard cases (HARD = True) have their own bounded tests: tests/gosim/test_hard_cases.py
CASES = [c for c in ALL_CASES if not getattr(c, "HARD", False)]
IDS = [c.ID for c in CASES]

# runs to the first failure of the buggy form, worst over the seeds (measured; atheris with the
# harnesses' -len_control=0 default, fuzzfarm.harness.LIBFUZZER_DEFAULTS)
MEASURED = {
    #        random (1..10)  pct (1..10)  atheris (1..5)
    "HC-01": (4, 54, 60),
    "HC-03": (8, 83, 239),
    "HC-04": (2, 26, 98),
    "HC-06": (5, 3, 45),
    "HC-08": (2, 5, 1),
    "HC-09": (119, 521, 430),
    "HC-10": (1, 1, 1),
    "HC-11": (1, 1, 1),
    "HC-12": (2, 2, 1),
    "HC-15": (9, 6, 1),
    # needs 1 s of starvation: found by runs without the realism bound (docs/timing.md)
    "HC-20": (120, 53, 624),
    # data races (the detector: found on the first schedule, whatever it interleaves)
    "DR-01": (1, 1, 1),
    "DR-02": (1, 1, 1),
    "DR-03": (1, 1, 1),
}
HEADROOM = 5
FIXED_RUNS_DEFAULT = 500
FIXED_RUNS_SLOW = 10_000


def bound(case_id: str, column: int) -> int:
    return max(10, HEADROOM * MEASURED[case_id][column])


def runs_to_failure(case, strategy, limit: int):
    for i in range(1, limit + 1):
        f = gosim.run(case.buggy, strategy=strategy, **case.RUN_KW).failure
        if f is not None:
            return i, f
    return None, None


def test_every_case_has_the_metadata_and_both_forms():
    assert len(ALL_CASES) == 18 and len({c.ID for c in ALL_CASES}) == 18 and len(CASES) == 14
    for c in ALL_CASES:
        assert callable(c.buggy) and callable(c.fixed)
        assert c.KIND == c.KINDS[0] and all(k in {f.kind for f in gosim.ALL_FAILURES} for k in c.KINDS)
        assert c.SOURCE.startswith("https://") and c.DEPTH in (0, 1, 2, 3)
        assert (c.EXC_CLASS is not None) == (c.KIND == "goroutine panic")
    assert examples.load("hc06") is examples.load("HC-06") is examples.load("hc06_reshard_close")
    with pytest.raises(KeyError):
        examples.load("hc99")


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("strategy", ["random", "pct"])
def test_buggy_form_fails_within_the_bound(case, strategy):
    column = 0 if strategy == "random" else 1
    limit = bound(case.ID, column)
    for seed in range(1, 11):
        s = RandomStrategy(seed) if strategy == "random" else PCTStrategy(seed)
        n, f = runs_to_failure(case, s, limit)
        assert n is not None, f"{case.ID} {strategy} seed {seed}: no failure in {limit} runs"
        assert f.kind in case.KINDS, f.render()
        if f.kind == "goroutine panic":
            assert f.exc_class == case.EXC_CLASS, f.render()


def _fixed_never_fails(case, runs):
    for strategy in (RandomStrategy(7), PCTStrategy(7)):
        for i in range(runs):
            f = gosim.run(case.fixed, strategy=strategy, **case.RUN_KW).failure
            assert f is None, f"{case.ID} fixed failed at run {i} under {type(strategy).__name__}:\n{f.render()}"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fixed_form_never_fails(case):
    _fixed_never_fails(case, FIXED_RUNS_DEFAULT)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fixed_form_never_fails_in_10000_runs(case):
    _fixed_never_fails(case, FIXED_RUNS_SLOW)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fixed_form_passes_where_the_buggy_form_failed(case):
    """The failing schedules of the buggy form, replayed as bytes on the fixed form."""
    from fuzzfarm.strategies.recording import RecordingStrategy

    s = RecordingStrategy(RandomStrategy(3))
    hits = 0
    for _ in range(200):
        if gosim.run(case.buggy, strategy=s, **case.RUN_KW).failure is not None:
            hits += 1
            assert gosim.run(case.fixed, strategy=BytesStrategy(bytes(s.recorded)), **case.RUN_KW).failure is None
    assert hits > 0


# ------------------------------------------------------------------------------- atheris
def atheris_runs_to_crash(case_id: str, variant: str, seed: int, max_runs: int, timeout: float = 300):
    """Run the examples harness under libFuzzer; (executed units, crashed?, output)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, FUZZFARM_EXAMPLE=case_id, FUZZFARM_VARIANT=variant, PYTHONUNBUFFERED="1",
                   PYTHONHASHSEED="0")
        proc = subprocess.run([sys.executable, HARNESS, f"-runs={max_runs}", f"-seed={seed}", "-print_final_stats=1",
                               f"-artifact_prefix={tmp}/", "-timeout=30"], cwd=tmp, env=env,
                              capture_output=True, text=True, timeout=timeout)
        out = proc.stdout + proc.stderr
        m = re.search(r"stat::number_of_executed_units: (\d+)", out)
        crashes = [f for f in os.listdir(tmp) if f.startswith("crash-")]
        assert m, out[-3000:]
        if proc.returncode == 77:
            assert crashes, out[-3000:]
            with open(os.path.join(tmp, crashes[0]), "rb") as fh:
                data = fh.read()
            return int(m.group(1)), data, out
        assert proc.returncode == 0, out[-3000:]
        return int(m.group(1)), None, out


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_atheris_finds_each_buggy_form_within_the_bound_and_the_crash_replays(case):
    limit = bound(case.ID, 2)
    n, data, out = atheris_runs_to_crash(case.ID, "buggy", 1, limit)
    assert data is not None, f"{case.ID}: no crash in {limit} atheris runs\n{out[-2000:]}"
    assert n <= limit
    # the crash file replays the same failure in this process (and the fixed form passes)
    import importlib

    os.environ["FUZZFARM_EXAMPLE"] = case.ID
    try:
        sys.modules.pop("harnesses.examples_race", None)
        h = importlib.import_module("harnesses.examples_race")
        ex = h.execute(data, "buggy")
        assert ex.failure is not None and ex.failure.kind in case.KINDS
        assert h.execute(data, "fixed").failure is None
    finally:
        del os.environ["FUZZFARM_EXAMPLE"]
        sys.modules.pop("harnesses.examples_race", None)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_atheris_fixed_form_runs_clean(case):
    n, data, out = atheris_runs_to_crash(case.ID, "fixed", 1, 20_000, timeout=900)
    assert data is None, out[-3000:]
    assert n == 20_000


def test_hc08_fails_in_every_schedule_as_upstream_and_its_go_twin_do():
    """etcd's watch benchmark closes the creation report's channel (watch.go:138) before it starts
    the put phase (:167), so every event a receiver forwards is a send on a closed channel: the Go
    twin (gotwins/examples/hc08) panics in every real-Go run. A port that starts the putter before
    the close has schedules that deliver every event first and pass: not upstream's bug."""
    case = examples.load("hc08")
    assert case.DEPTH == 0
    for strategy in [RandomStrategy(s) for s in range(100)] + [PCTStrategy(s) for s in range(100)]:
        f = gosim.run(case.buggy, strategy=strategy, **case.RUN_KW).failure
        assert f is not None and f.kind == case.KIND, f"{type(strategy).__name__}: {f and f.render()}"


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.ID for c in ALL_CASES])
def test_under_go_test_race_every_buggy_failure_is_one_of_the_case_kinds(case):
    """``go test -race`` is how users run Go: with the detector on from the start (race=True), a
    case may end with a race report where the plain run ends with a panic (HC-04's map, HC-09's
    WaitGroup: their Go twins report races in most real-Go -race runs), so KINDS lists it."""
    for seed in range(60):
        f = gosim.run(case.buggy, strategy=RandomStrategy(seed), **{**case.RUN_KW, "race": True}).failure
        assert f is None or f.kind in case.KINDS, f.render()
