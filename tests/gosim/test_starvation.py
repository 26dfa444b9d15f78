"""Progress-preserving timing inputs: early timer firing never starves a runnable goroutine
indefinitely, a starvation the schedule caused is never reported as the program's failure,
a real livelock still is, and every run measures its starvation."""

from __future__ import annotations

import pytest

from fuzzfarm import gosim
from fuzzfarm.strategies import BytesStrategy, PCTStrategy, RandomStrategy

from timer_programs import spinning_pair, ticker_with_slow_handler


def _runs(strategy, n, program, **kw):
    for _ in range(n):
        yield gosim.run(program(), strategy=strategy, **kw)


@pytest.mark.parametrize("strategy", ["random", "pct"])
def test_correct_ticker_program_never_fails(strategy):
    # Before early firing was bounded, pct failed 87 of 300 of these runs with a step limit.
    s = RandomStrategy(11) if strategy == "random" else PCTStrategy(11)
    for i, rep in enumerate(_runs(s, 250, ticker_with_slow_handler)):
        assert rep.failure is None, (i, rep.failure)


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["random", "pct"])
def test_correct_ticker_program_never_fails_20000_runs(strategy):
    s = RandomStrategy(12) if strategy == "random" else PCTStrategy(12)
    for i, rep in enumerate(_runs(s, 20_000, ticker_with_slow_handler)):
        assert rep.failure is None, (i, rep.failure)


@pytest.mark.parametrize("strategy", ["random", "pct", "bytes"])
def test_real_livelock_is_still_reported_as_the_programs(strategy):
    s = {"random": RandomStrategy(3), "pct": PCTStrategy(3), "bytes": BytesStrategy(b"")}[strategy]
    rep = gosim.run(spinning_pair(), strategy=s, max_steps=2_000)
    assert isinstance(rep.failure, gosim.StepLimitExceeded)
    assert "the program spins" in rep.failure.detail and "no timer fired early" in rep.failure.detail


def test_livelock_beside_a_ticker_is_reported_after_the_drain():
    # The schedule fires the ticker early, so the first budget's end could be the schedule's
    # doing: the run goes on with early firing off, still spins, and says so.
    def main():
        t = gosim.new_ticker(0.5, name="bg")

        def drain_ticks():
            while True:
                t.c.recv()

        gosim.go(drain_ticks, name="ticks")
        spinning_pair()()

    for seed in range(5):
        rep = gosim.run(main, strategy=RandomStrategy(seed), max_steps=2_000)
        assert isinstance(rep.failure, gosim.StepLimitExceeded)
        assert rep.early_fires > 0 and rep.drained_at is not None
        assert "switched off" in rep.failure.detail and "the program spins" in rep.failure.detail
        assert rep.steps > 2_000  # the second budget ran too


class _AlwaysTimer:
    """Fires the timer whenever it may: the most starving schedule there is."""

    def begin(self, rt):
        pass

    def pick(self, runnable, current, timer):
        return len(runnable) if timer else 0

    def pick_index(self, n, what):
        return 0


def _waiter_and_ticker():
    """G2 is runnable from t=0 and needs one step; main sleeps 100 s while a 1 s ticker runs."""
    seen = {}

    def main():
        t = gosim.new_ticker(1.0, name="tk")

        def worker():
            seen["ran_at"] = gosim.now()

        gosim.go(worker, name="worker")
        gosim.sleep(100.0)
        t.stop()

    return main, seen


def test_early_firing_cannot_starve_a_runnable_goroutine_indefinitely():
    main, seen = _waiter_and_ticker()
    rep = gosim.run(main, strategy=_AlwaysTimer(), early_cap=3)
    assert rep.failure is None
    # it waited through at most early_cap firings (1 s apart) before it ran
    assert seen["ran_at"] <= 3.0
    assert rep.starvation == pytest.approx(seen["ran_at"])
    assert rep.starved == (2, "worker")


def test_max_starvation_s_bounds_the_measured_starvation():
    for bound in (0.0, 1.0, 2.5):
        main, seen = _waiter_and_ticker()
        rep = gosim.run(main, strategy=_AlwaysTimer(), max_starvation_s=bound, early_cap=1_000)
        assert rep.failure is None
        assert rep.starvation <= bound
        assert seen["ran_at"] <= bound
    main, seen = _waiter_and_ticker()
    rep = gosim.run(main, strategy=_AlwaysTimer(), early_cap=1_000)  # no bound in time
    assert seen["ran_at"] >= 99.0 and rep.starvation >= 99.0


def test_starvation_is_zero_when_timers_fire_only_on_idle():
    main, _ = _waiter_and_ticker()
    rep = gosim.run(main, strategy=BytesStrategy(b""))
    assert rep.starvation == 0.0 and rep.early_fires == 0
