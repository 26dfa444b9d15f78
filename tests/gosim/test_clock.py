"""The virtual clock: now, sleep, after, timers and tickers. Time moves only when the
scheduler says: it jumps to the earliest timer when nothing is runnable, or a decision fires
the earliest timer early (a slow goroutine)."""

import time

import pytest

from fuzzfarm import gosim
from fuzzfarm.gosim import Deadlock

from gosim_helpers import Prefer, fails, ok, run_bytes


def test_sleeping_moves_virtual_time_exactly_and_costs_no_real_time():
    seen = []

    def main():
        for i in range(1, 51):
            gosim.sleep(10 * i)
            seen.append(gosim.now())

    t0 = time.perf_counter()
    rep = ok(run_bytes(main))
    assert time.perf_counter() - t0 < 1.0
    assert seen == [float(sum(10 * j for j in range(1, i + 1))) for i in range(1, 51)]
    assert rep.now == seen[-1]


def test_time_does_not_move_while_something_is_runnable():
    seen = []

    def main():
        gosim.go(lambda: (gosim.sleep(1), seen.append(("sleeper", gosim.now()))))
        for _ in range(5):
            gosim.gosched()
        seen.append(("busy main", gosim.now()))

    ok(run_bytes(main, b"", check_leaks=True))
    assert seen == [("busy main", 0.0), ("sleeper", 1.0)]


def test_a_decision_fires_the_earliest_timer_early_relative_to_runnable_goroutines():
    seen = []

    def main():
        gosim.go(lambda: (gosim.sleep(7), seen.append(("sleeper", gosim.now()))))
        gosim.gosched()  # [G1, G2] at go; here [G1, G2, timer]
        seen.append(("main", gosim.now()))

    # byte 0: stay at go; byte 1: G2 runs and sleeps; then main alone with a pending timer:
    # option 1 of [G1, timer] fires it (main was "slow")
    rep = ok(run_bytes(main, b"\x00\x01\x01", check_leaks=True))
    assert 0 in rep.decisions
    assert ("main", 7.0) in seen


def test_after_delivers_the_virtual_time():
    got = []

    def main():
        gosim.sleep(1.5)
        got.append(gosim.after(2).recv())

    ok(run_bytes(main))
    assert got == [3.5]


def test_timer_stop_before_firing_and_reset():
    got = []

    def main():
        t = gosim.new_timer(5)
        got.append(t.stop())
        got.append(t.stop())
        got.append(gosim.select(gosim.recv_case(t.c), gosim.recv_case(gosim.after(10)))[0])
        got.append(t.reset(1))
        got.append(t.c.recv())
        got.append(t.stop())

    ok(run_bytes(main))
    assert got == [True, False, 1, False, 11.0, False]


def test_after_func_runs_in_a_new_goroutine_at_d():
    got = []

    def main():
        gosim.after_func(3, lambda: got.append((gosim.goroutine_id(), gosim.now())))
        gosim.sleep(10)

    rep = ok(run_bytes(main))
    assert got == [(2, 3.0)]
    assert rep.legend[1][2].startswith("test_after_func_runs_in_a_new_goroutine_at_d.main (test_clock.py:")


def test_ticker_ticks_every_d_and_drops_ticks_when_the_channel_is_full():
    got = []

    def main():
        tk = gosim.new_ticker(2)
        got.append(tk.c.recv())
        got.append(tk.c.recv())
        gosim.sleep(9)  # wakes at 13: the tick at 6 sits in the 1-slot channel, 8, 10, 12 are dropped
        got.append(tk.c.recv())
        got.append(tk.c.recv())
        tk.stop()
        got.append(gosim.select(gosim.recv_case(tk.c), default=True)[0])

    ok(run_bytes(main))
    assert got == [2.0, 4.0, 6.0, 14.0, gosim.DEFAULT]


def test_ticker_reset_and_bad_interval():
    got = []

    def main():
        tk = gosim.new_ticker(1)
        tk.reset(5)
        got.append(tk.c.recv())
        with pytest.raises(ValueError):
            tk.reset(0)
        tk.stop()

    ok(run_bytes(main))
    assert got == [5.0]

    def bad():
        gosim.new_ticker(0)

    fails(run_bytes(bad), gosim.GoroutinePanic)


def test_timers_due_at_the_same_time_fire_in_the_order_they_were_armed():
    got = []

    def main():
        for name in "abc":
            gosim.after_func(1, lambda name=name: got.append(name))
        gosim.sleep(2)

    ok(run_bytes(main))
    assert got == ["a", "b", "c"]


def test_all_goroutines_blocked_with_only_an_unread_ticker_is_a_deadlock_not_a_hang():
    def main():
        gosim.new_ticker(0.5)
        gosim.Chan().recv()

    f = fails(run_bytes(main, max_steps=100_000), Deadlock, gid=1)
    assert f.now == 0.5  # one tick filled the channel; after that the ticker changes nothing


def test_a_ticker_loop_that_never_ends_hits_the_step_limit():
    def main():
        tk = gosim.new_ticker(1)
        while True:
            tk.c.recv()

    f = fails(run_bytes(main, max_steps=500), gosim.StepLimitExceeded, gid=1)
    assert f.step in (500, 501)


def test_a_strategy_that_always_fires_timers_cannot_run_past_the_step_limit():
    class AlwaysTimer(Prefer):
        def pick(self, runnable, current, timer):
            return len(runnable) if timer else 0

    def main():
        gosim.new_ticker(1)
        while True:
            gosim.gosched()

    rep = gosim.run(main, strategy=AlwaysTimer(), max_steps=300)
    fails(rep, gosim.StepLimitExceeded)
