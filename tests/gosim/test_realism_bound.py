"""The realism bound as a label, not a filter (docs/timing.md): with ``lift_one_in`` a run keeps
``max_starvation_s`` until a timer could fire past it, then one schedule decision says whether
the run goes on without it. So a bug that needs a long starvation (HC-20) is found, a run that
never reaches the bound is the same run as before, the bytes strategy's default keeps the bound,
and a correct ticker program searched this way still never fails (the drain re-checks a step
limit with early firing off), while a real livelock is still reported."""

from __future__ import annotations

import pytest

from fuzzfarm import gosim
from fuzzfarm.examples import hc03_lock_order as HC03
from fuzzfarm.examples import hc20_processor_listener_start as HC20
from fuzzfarm.strategies import BytesStrategy, PCTStrategy, RandomStrategy
from fuzzfarm.strategies.recording import RecordingStrategy

from timer_programs import spinning_pair, ticker_with_slow_handler

LABEL = {"max_starvation_s": 0.1, "lift_one_in": 4}


@pytest.mark.parametrize("cls", [RandomStrategy, PCTStrategy])
def test_a_bug_that_needs_starvation_is_found_and_says_so(cls):
    s = cls(5)
    for _ in range(2_000):
        r = gosim.run(HC20.buggy, strategy=s, **HC20.RUN_KW, **LABEL)
        if r.failure is not None:
            break
    assert r.failure is not None and r.failure.kind == HC20.KIND
    assert r.bound_lifted and r.starvation >= HC20.RESYNC_CHECK_PERIOD and r.realism_bound_s == 0.1
    assert "left by this schedule" in r.starvation_line()


def test_the_lift_is_one_recorded_decision_that_replays():
    s = RecordingStrategy(RandomStrategy(4))
    for _ in range(2_000):
        r = gosim.run(HC20.buggy, strategy=s, **HC20.RUN_KW, **LABEL)
        if r.failure is not None:
            break
    assert r.failure is not None and r.bound_lifted
    again = gosim.run(HC20.buggy, strategy=BytesStrategy(bytes(s.recorded)), **HC20.RUN_KW, **LABEL)
    assert again.failure is not None and again.bound_lifted and again.starvation == r.starvation
    # the same bytes with the bound as a filter: the lift decision is not asked, the run differs
    assert gosim.run(HC20.buggy, strategy=BytesStrategy(bytes(s.recorded)), **HC20.RUN_KW,
                     max_starvation_s=0.1).failure is None


def test_the_bytes_default_keeps_the_bound():
    r = gosim.run(ticker_with_slow_handler(), strategy=BytesStrategy(b""), **LABEL)
    assert not r.bound_lifted and r.failure is None


def test_a_run_that_never_reaches_the_bound_is_unchanged():
    """No timer past the bound, no lift decision: the same decisions as with the bound as a filter."""
    for seed in range(20):
        a = gosim.run(HC03.buggy, strategy=RandomStrategy(seed), **HC03.RUN_KW, max_starvation_s=0.1)
        b = gosim.run(HC03.buggy, strategy=RandomStrategy(seed), **HC03.RUN_KW, **LABEL)
        assert a.decisions == b.decisions and not b.bound_lifted


def _ticker_runs(strategy, n):
    lifted = 0
    for i in range(n):
        r = gosim.run(ticker_with_slow_handler(), strategy=strategy, **LABEL)
        assert r.failure is None, (i, r.failure.render())
        lifted += r.bound_lifted
    return lifted


@pytest.mark.parametrize("cls", [RandomStrategy, PCTStrategy])
def test_correct_ticker_program_searched_without_the_bound_never_fails(cls):
    # not vacuous: a share of these runs left the bound (and fired the ticker past it)
    assert _ticker_runs(cls(21), 2_000) > 0


def test_a_step_limit_of_a_run_past_the_bound_is_rechecked_with_early_firing_off():
    """Heavier handlers and a smaller step budget: runs that left the bound pile up handlers
    until the budget is spent. The drain (docs/timing.md) re-checks them with early firing off,
    as a realistic schedule would run them: they finish, so none is the program's failure."""
    s, drained = RandomStrategy(21), 0
    for i in range(500):
        r = gosim.run(ticker_with_slow_handler(handler_work=60), strategy=s, max_steps=5_000, **LABEL)
        assert r.failure is None, (i, r.failure.render())
        drained += r.bound_lifted and r.drained_at is not None
    assert drained > 0  # not vacuous: the re-check was needed


@pytest.mark.slow
@pytest.mark.parametrize("cls", [RandomStrategy, PCTStrategy])
def test_correct_ticker_program_searched_without_the_bound_never_fails_20000_runs(cls):
    assert _ticker_runs(cls(22), 20_000) > 0


@pytest.mark.parametrize("cls", [RandomStrategy, PCTStrategy])
def test_a_real_livelock_beside_a_ticker_is_still_reported(cls):
    def main():
        t = gosim.new_ticker(0.5, name="bg")

        def drain_ticks():
            while True:
                t.c.recv()

        gosim.go(drain_ticks, name="ticks")
        spinning_pair()()

    seen_lifted = False
    for seed in range(12):
        rep = gosim.run(main, strategy=cls(seed), max_steps=2_000, **LABEL)
        assert isinstance(rep.failure, gosim.StepLimitExceeded) and "the program spins" in rep.failure.detail
        seen_lifted |= rep.bound_lifted
    assert seen_lifted
