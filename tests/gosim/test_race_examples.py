"""The three data-race examples (DR-01..03): the report names both goroutines and both sites,
under the bytes strategy; the fixed forms report nothing (500 runs here, 50,000 in the slow tier)."""

import random

import pytest

from fuzzfarm import examples, gosim
from fuzzfarm.strategies import BytesStrategy

# (case, current/previous access sites as functions, goroutine names) -- either order
EXPECTED = {
    "DR-01": ({"LeaderElector.is_leader", "LeaderElector.try_acquire_or_renew"},
              {"_scenario.main.health_check", "renew.func1.1"}),
    "DR-02": ({"DeferredLoadingClientConfig.create_client_config", "DeferredLoadingClientConfig._load"},
              {"_scenario.main.controller"}),
    # the promoted V's read is its caller's (Go inlines the wrapper: the twin's -race report)
    "DR-03": ({"_scenario.main.controller", "DelegatingLogger.fulfill"},
              {"_scenario.main.controller", "_scenario.main.eventually_fulfill"}),
}
CASES = [examples.load(c) for c in EXPECTED]


def _inputs(seed, n):
    rng = random.Random(seed)
    return [rng.randbytes(rng.randrange(0, 400)) for _ in range(n)]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.ID)
def test_buggy_report_names_both_goroutines_and_both_sites(case):
    sites, names = EXPECTED[case.ID]
    for seed in range(1, 6):
        data = _inputs(seed, 1)[0]
        f = gosim.run(case.buggy, strategy=BytesStrategy(data), **case.RUN_KW).failure
        assert isinstance(f, gosim.DataRace), f and f.render()
        assert {f.access[3].func, f.previous[3].func} == sites
        assert {f.access[2], f.previous[2]} <= names and f.access[1] != f.previous[1]
        assert f.crash_state == sorted(sites)
        text = f.report()
        assert f"by goroutine {f.access[1]} [{f.access[2]}]" in text
        assert f"by goroutine {f.previous[1]} [{f.previous[2]}]" in text
        assert text.count("created at:") == 2


def _fixed_clean(case, runs):
    for i, data in enumerate(_inputs(99, runs)):
        f = gosim.run(case.fixed, strategy=BytesStrategy(data), **case.RUN_KW).failure
        assert f is None, f"{case.ID} fixed failed at input {i}:\n{f.render()}"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.ID)
def test_fixed_reports_nothing(case):
    _fixed_clean(case, 500)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.ID)
def test_fixed_reports_nothing_in_50000_runs(case):
    _fixed_clean(case, 50_000)


def test_fuzzfarm_race_env_sets_the_detector_of_a_harness(monkeypatch):
    import importlib
    import sys

    from fuzzfarm.harness import HarnessError

    monkeypatch.setenv("FUZZFARM_EXAMPLE", "dr01")
    sys.modules.pop("harnesses.examples_race", None)
    try:
        h = importlib.import_module("harnesses.examples_race")
        data = bytes(range(40))
        for mode, races in (("auto", True), ("on", True), ("off", False)):
            monkeypatch.setenv("FUZZFARM_RACE", mode)
            f = h.execute(data, "buggy").failure
            assert (f is not None and f.kind == "data race") is races, (mode, f and f.render())
        monkeypatch.setenv("FUZZFARM_RACE", "bogus")
        with pytest.raises(HarnessError, match="FUZZFARM_RACE='bogus': choose on, off or auto"):
            h.execute(data, "buggy")
    finally:
        sys.modules.pop("harnesses.examples_race", None)
