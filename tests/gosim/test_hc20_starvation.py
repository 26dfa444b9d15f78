"""HC-20 (docs/CASES.md#hc-20) is a bug that needs starvation: its buggy form deadlocks only when
``processor.run`` stays runnable and unscheduled through a whole resync period (1 s), so no
schedule under the 0.1 s bound reaches it, and every failing schedule measures that starvation
on that goroutine. Its fixed form passes every schedule, with or without the bound."""

from __future__ import annotations

import pytest

from fuzzfarm import gosim
from fuzzfarm.examples import hc20_processor_listener_start as C
from fuzzfarm.strategies import BytesStrategy, PCTStrategy, RandomStrategy
from fuzzfarm.strategies.recording import RecordingStrategy


def _failures(main, strategy, runs, **kw):
    for _ in range(runs):
        r = gosim.run(main, strategy=strategy, **{**C.RUN_KW, **kw})
        if r.failure is not None:
            yield r


@pytest.mark.parametrize("cls", [RandomStrategy, PCTStrategy])
def test_found_without_the_bound_with_the_starvation_it_needs(cls):
    r = next(_failures(C.buggy, cls(3), 1_000, max_starvation_s=None), None)
    assert r is not None, "HC-20 not found in 1,000 unbounded runs"
    assert r.failure.kind == C.KIND
    assert r.starvation >= C.RESYNC_CHECK_PERIOD and r.early_fires >= 1


@pytest.mark.parametrize("cls", [RandomStrategy, PCTStrategy])
def test_no_schedule_under_the_bound_reaches_it(cls):
    # the trigger is starvation: a 0.1 s bound used as a filter hides it (issue 30)
    assert next(_failures(C.buggy, cls(3), 500, max_starvation_s=0.1), None) is None


def test_the_starved_goroutine_is_processor_run_in_the_failing_schedule():
    """Replayed with main already blocked (its failing schedule, recorded, then every run
    from it): the goroutine kept runnable through the resync period is ``processor.run``."""
    s = RecordingStrategy(RandomStrategy(2))
    seen = set()
    for _ in range(2_000):
        r = gosim.run(C.buggy, strategy=s, **C.RUN_KW)
        if r.failure is not None:
            seen.add(r.starved[1])
            again = gosim.run(C.buggy, strategy=BytesStrategy(bytes(s.recorded)), **C.RUN_KW)
            assert again.failure is not None and again.starvation == r.starvation
    assert "processor.run" in seen, seen


@pytest.mark.parametrize("bound", [None, 0.1])
def test_fixed_form_never_fails(bound):
    for s in (RandomStrategy(7), PCTStrategy(7)):
        assert next(_failures(C.fixed, s, 500, max_starvation_s=bound), None) is None
