"""sync.Mutex and sync.Once (docs/RUNTIME.md#mutex: not reentrant; on release any contender may win; unlock
of an unlocked mutex is fatal)."""

from fuzzfarm import gosim
from fuzzfarm.gosim import Deadlock, UnlockOfUnlockedMutex
from fuzzfarm.strategies import RandomStrategy

from gosim_helpers import Prefer, fails, ok, run_bytes, run_prefer


def _counter(use_lock: bool):
    box = {"n": 0}

    def main():
        m = gosim.Mutex()
        wg = gosim.WaitGroup()

        def incr():
            for _ in range(3):
                if use_lock:
                    m.lock()
                v = box["n"]
                gosim.gosched()  # a read-modify-write spanning a scheduling point
                box["n"] = v + 1
                if use_lock:
                    m.unlock()
            wg.done()

        wg.add(3)
        for _ in range(3):
            gosim.go(incr)
        wg.wait()

    return main, box


def test_mutex_gives_mutual_exclusion_under_every_random_schedule():
    for seed in range(200):
        main, box = _counter(True)
        ok(gosim.run(main, strategy=RandomStrategy(seed)))
        assert box["n"] == 9


def test_without_the_mutex_some_schedule_loses_an_update():
    lost = 0
    for seed in range(200):
        main, box = _counter(False)
        ok(gosim.run(main, strategy=RandomStrategy(seed)))
        lost += box["n"] < 9
    assert lost > 0


def test_lock_blocks_while_held_and_the_waiter_gets_it_after_unlock():
    log = []

    def main():
        m = gosim.Mutex()
        m.lock()

        def waiter():
            m.lock()
            log.append(("waiter locked", gosim.now()))
            m.unlock()

        gosim.go(waiter)
        gosim.sleep(2)  # the waiter runs and blocks in Lock
        log.append(("main unlocks", gosim.now()))
        m.unlock()
        gosim.sleep(1)

    ok(run_bytes(main))
    assert log == [("main unlocks", 2.0), ("waiter locked", 2.0)]


def test_mutex_is_not_reentrant_a_second_lock_deadlocks():
    def main():
        m = gosim.Mutex()
        m.lock()
        m.lock()

    f = fails(run_bytes(main), Deadlock, gid=1)
    assert f.dumps[0].wait == "sync.Mutex.Lock"


def test_unlock_of_unlocked_mutex_is_fatal():
    def main():
        gosim.Mutex().unlock()

    f = fails(run_bytes(main), UnlockOfUnlockedMutex, gid=1)
    assert f.detail == "sync: unlock of unlocked mutex" and f.fatal
    assert f.crash_state[0].endswith("main")


def test_double_unlock_is_fatal():
    def main():
        m = gosim.Mutex()
        m.lock()
        m.unlock()
        m.unlock()

    fails(run_bytes(main), UnlockOfUnlockedMutex, gid=1)


def test_any_goroutine_may_unlock():
    def main():
        m = gosim.Mutex()
        m.lock()
        gosim.go(m.unlock)
        m.lock()  # blocks until the other goroutine unlocks
        m.unlock()

    ok(run_bytes(main))


def _barging_scenario(log):
    """G2 waits in Lock; G3 arrives just as main unlocks. Who gets the mutex is up to the schedule."""

    def main():
        m = gosim.Mutex()
        go_ahead = gosim.Chan(1)
        m.lock()

        def waiter():
            m.lock()
            log.append("G2 (woken waiter)")
            m.unlock()

        def late():
            go_ahead.recv()
            m.lock()
            log.append("G3 (late arrival)")
            m.unlock()

        gosim.go(waiter)
        gosim.go(late)
        gosim.sleep(1)  # G2 blocks in Lock, G3 blocks on go_ahead
        go_ahead.send(None)  # G3 becomes runnable, about to Lock
        m.unlock()  # wakes G2: G2 and G3 now contend
        gosim.sleep(1)

    return main


def test_barging_a_later_arrival_can_take_the_mutex_ahead_of_the_woken_waiter():
    log = []
    s = Prefer(1)  # main first until it sleeps; then the order below
    main = _barging_scenario(log)

    def pick_late_after_unlock(runnable, current, timer, _orig=s.pick):
        if {g.gid for g in runnable} >= {2, 3}:
            s.order = [3, 2, 1]
        return _orig(runnable, current, timer)

    s.pick = pick_late_after_unlock
    ok(gosim.run(main, strategy=s))
    assert log == ["G3 (late arrival)", "G2 (woken waiter)"]


def test_barging_the_woken_waiter_can_also_win():
    log = []
    ok(run_prefer(_barging_scenario(log), 1, 2, 3))
    assert log == ["G2 (woken waiter)", "G3 (late arrival)"]


def test_unlock_does_not_hand_off_fifo_every_waiter_contends():
    orders = set()
    for seed in range(60):
        log = []

        def main():
            m = gosim.Mutex()
            m.lock()
            for i in range(3):
                def w(i=i):
                    m.lock()
                    log.append(i)
                    m.unlock()
                gosim.go(w)
            gosim.sleep(1)
            m.unlock()
            gosim.sleep(1)

        ok(gosim.run(main, strategy=RandomStrategy(seed)))
        orders.add(tuple(log))
    assert len(orders) >= 4


def test_try_lock():
    res = []

    def main():
        m = gosim.Mutex()
        res.append(m.try_lock())
        res.append(m.try_lock())
        m.unlock()
        res.append(m.try_lock())

    ok(run_bytes(main))
    assert res == [True, False, True]


def test_once_runs_f_once_and_concurrent_callers_wait_for_it():
    calls, after = [], []

    def main():
        once = gosim.Once()

        def f():
            calls.append(gosim.goroutine_id())
            gosim.sleep(1)  # slow initialiser

        def caller():
            once.do(f)
            after.append((gosim.goroutine_id(), gosim.now()))

        wg = gosim.WaitGroup()
        wg.add(3)
        for _ in range(3):
            gosim.go(lambda: (caller(), wg.done()))
        wg.wait()

    for seed in range(30):
        calls.clear()
        after.clear()
        ok(gosim.run(main, strategy=RandomStrategy(seed)))
        assert len(calls) == 1
        assert sorted(t for _, t in after) == [1.0, 1.0, 1.0]  # nobody returns before f did


def test_once_counts_a_panicking_f_as_done():
    calls = []

    def main():
        once = gosim.Once()

        def f():
            calls.append(1)
            raise RuntimeError("init failed")

        try:
            once.do(f)
        except RuntimeError:
            pass  # (a recover() in Go)
        once.do(f)

    ok(run_bytes(main))
    assert calls == [1]
