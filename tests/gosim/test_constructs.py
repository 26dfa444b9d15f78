"""sync.Cond, sync/atomic values and errgroup: Go's semantics and panics (the happens-before
edges they add are in test_race.py)."""

import pytest

from fuzzfarm import gosim
from fuzzfarm.gosim import atomic, errgroup

from gosim_helpers import Prefer, fails, ok, run_bytes, run_prefer


def test_cond_signal_wakes_the_oldest_waiter_and_broadcast_wakes_all():
    order = []

    def main():
        m = gosim.Mutex()
        c = gosim.Cond(m)

        def waiter(i):
            with m:
                c.wait()
                order.append(i)

        for i in range(3):
            gosim.go(waiter, i)
        gosim.sleep(1)  # all three wait, in gid order
        c.signal()
        gosim.sleep(1)
        assert order == [0]
        c.broadcast()
        gosim.sleep(1)
        assert sorted(order) == [0, 1, 2]
        c.signal()  # nobody waits: a no-op

    ok(run_prefer(main))


def test_cond_signal_between_unlock_and_park_is_not_lost():
    # the waiter's ticket is taken before L is unlocked; Prefer(2, 1) runs the signaller at
    # the unlock's scheduling point, before the waiter parks
    def main():
        m = gosim.Mutex()
        c = gosim.Cond(m)
        done = gosim.Chan(1)

        def signaller():
            with m:  # so the signal comes after the waiter's wait released m
                c.signal()

        def waiter():
            m.lock()
            gosim.go(signaller)
            c.wait()
            m.unlock()
            done.send(True)

        gosim.go(waiter)
        assert done.recv()

    ok(run_prefer(main, 3, 2, 1))
    for seed in range(30):
        from fuzzfarm.strategies import RandomStrategy
        ok(gosim.run(main, strategy=RandomStrategy(seed)))


def test_cond_wait_relocks_l_and_works_with_the_read_side_of_an_rwmutex():
    def main():
        rw = gosim.RWMutex()
        c = gosim.Cond(rw.rlocker())
        state = {"ready": False}

        def waiter():
            rw.rlock()
            while not state["ready"]:
                c.wait()
            assert rw.readers == 1  # re-locked (read side) before wait returned
            rw.runlock()

        gosim.go(waiter)
        gosim.sleep(1)
        with rw:
            state["ready"] = True
        c.broadcast()
        gosim.sleep(1)

    ok(run_prefer(main))


def test_cond_wait_without_holding_l_is_gos_fatal():
    def main():
        gosim.Cond(gosim.Mutex()).wait()

    f = fails(run_bytes(main), gosim.UnlockOfUnlockedMutex, gid=1)
    assert f.detail == "sync: unlock of unlocked mutex"


def test_cond_needs_a_locker():
    def main():
        with pytest.raises(TypeError):
            gosim.Cond(object())

    ok(run_bytes(main))


def test_atomic_integers_wrap_like_go():
    def main():
        i32 = atomic.Int32(2**31 - 1)
        assert i32.add(1) == -(2**31)
        u32 = atomic.Uint32()
        assert u32.add(-1) == 2**32 - 1
        i64 = atomic.Int64(5)
        assert i64.swap(7) == 5 and i64.load() == 7
        assert i64.compare_and_swap(7, 9) and not i64.compare_and_swap(7, 10) and i64.load() == 9
        u64 = atomic.Uint64(0b1100)
        assert u64.and_(0b0100) == 0b1100 and u64.load() == 0b0100
        assert u64.or_(0b0001) == 0b0100 and u64.load() == 0b0101
        b = atomic.Bool()
        assert not b.load() and not b.swap(True) and b.compare_and_swap(True, False) and not b.load()

    ok(run_bytes(main))


def test_atomic_value_panics_like_go():
    def main():
        v = atomic.Value()
        assert v.load() is None
        with pytest.raises(RuntimeError, match="sync/atomic: store of nil value into Value"):
            v.store(None)
        v.store("a")
        with pytest.raises(RuntimeError, match="store of inconsistently typed value into Value"):
            v.store(1)
        assert v.swap("b") == "a"
        with pytest.raises(RuntimeError, match="compare and swap of inconsistently typed values"):
            v.compare_and_swap(1, "c")
        assert v.compare_and_swap("b", "c") and v.load() == "c"
        p = atomic.Pointer()
        obj = object()
        assert p.compare_and_swap(None, obj) and p.load() is obj and not p.compare_and_swap(object(), None)

    ok(run_bytes(main))


def test_atomic_add_never_loses_an_update_where_a_plain_counter_would():
    from fuzzfarm.strategies import RandomStrategy

    for seed in range(20):
        box = {}

        def main():
            n = box["n"] = atomic.Int64()
            wg = gosim.WaitGroup()
            for _ in range(4):
                wg.go(lambda: [n.add(1) for _ in range(5)])
            wg.wait()
            assert n.load() == 20

        ok(gosim.run(main, strategy=RandomStrategy(seed)))


def test_errgroup_first_error_wins_and_cancels_the_context():
    boom, other = gosim.GoError("boom"), gosim.GoError("other")

    def main():
        g, ctx = errgroup.with_context(gosim.background())
        seen = []

        def fails_first():
            return boom

        def waits_for_cancel():
            ctx.done().recv()
            seen.append(ctx.err())
            return other

        g.go(waits_for_cancel)
        g.go(fails_first)
        assert g.wait() is boom
        assert seen == [gosim.CANCELED]

    ok(run_prefer(main))
    ok(run_bytes(main, bytes(range(50))))


def test_errgroup_wait_cancels_the_context_even_without_an_error():
    def main():
        g, ctx = errgroup.with_context(gosim.background())
        g.go(lambda: None)
        assert g.wait() is None and ctx.err() is gosim.CANCELED

    ok(run_bytes(main))


def test_errgroup_limit_blocks_go_refuses_try_go_and_panics_when_changed_while_active():
    def main():
        g = errgroup.Group()
        g.set_limit(1)
        release = gosim.Chan()
        g.go(release.recv)
        assert not g.try_go(lambda: None)
        with pytest.raises(RuntimeError, match="errgroup: modify limit while 1 goroutines in the group are still active"):
            g.set_limit(2)
        release.send(None)
        assert g.wait() is None
        assert g.try_go(lambda: None) and g.wait() is None

    ok(run_prefer(main))
