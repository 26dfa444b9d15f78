"""The data race detector (``fuzzfarm/gosim/race.py``): happens-before, not interleaving.

Every scenario runs under ``Prefer()`` with no order: the running goroutine keeps running
until it blocks or exits (then the lowest runnable id), so the two accesses never overlap in
time. A race is still reported when no happens-before edge orders them; each edge of Go's
memory model has a pair of tests: with the edge, no report; the same program without it, the
race appears.
"""

import pytest

from fuzzfarm import gosim
from fuzzfarm.gosim import DataRace, Shared, Var
from fuzzfarm.gosim import atomic, errgroup

from gosim_helpers import Prefer, fails, ok, run_prefer


def seq(main, *order, **kw):
    return run_prefer(main, *order, **kw)


class Elector:
    observed = Shared()

    def __init__(self):
        self.observed = 0


def two_writers(sync: str | None):
    """G2 and G3 store one Shared field; ``sync`` says what orders them."""

    def main():
        e = Elector()
        m = gosim.Mutex("m")
        ch = gosim.Chan(name="handoff")
        wg = gosim.WaitGroup("wg")
        once = gosim.Once("once")

        def writer_a():
            if sync == "mutex":
                with m:
                    e.observed = 1
            elif sync == "once":
                once.do(lambda: setattr(e, "observed", 1))
            else:
                e.observed = 1
            if sync == "chan":
                ch.send(None)
            if sync == "wg":
                wg.done()

        def writer_b():
            if sync == "chan":
                ch.recv()
            if sync == "wg":
                wg.wait()
            if sync == "mutex":
                with m:
                    e.observed = 2
            elif sync == "once":
                once.do(lambda: setattr(e, "observed", 2))
            else:
                e.observed = 2

        if sync == "wg":
            wg.add(1)
        gosim.go(writer_a)
        gosim.go(writer_b)
        gosim.sleep(10)

    return main


def test_unsynchronised_stores_never_interleaved_are_a_data_race_with_both_sites():
    rep = seq(two_writers(None))
    f = fails(rep, DataRace, gid=3)
    # G2 ran to completion before G3 ran at all: nothing overlapped in time
    d = rep.decisions
    assert 2 in d and 3 in d and 2 not in d[d.index(3):]
    assert f.kind == "data race" and f.location == "Elector.observed"
    assert f.access[:2] == ("Write", 3) and f.previous[:2] == ("Write", 2)
    assert f.access[3].func == "two_writers.main.writer_b" and f.previous[3].func == "two_writers.main.writer_a"
    text = f.render()
    assert "WARNING: DATA RACE" in text and "Write at Elector.observed by goroutine 3" in text
    assert "Previous write at Elector.observed by goroutine 2" in text
    assert "Goroutine 3 [two_writers.main.writer_b] (running) created at:" in text
    assert "Goroutine 2 [two_writers.main.writer_a] (finished) created at:" in text
    assert f.to_json()["race"]["previous"]["site"]["func"] == "two_writers.main.writer_a"


def test_the_same_race_from_either_side_has_one_crash_state():
    a = fails(seq(two_writers(None)), DataRace)
    b = fails(seq(two_writers(None), 1, 3, 2), DataRace)  # G3 first this time
    assert (a.goroutine, b.goroutine) == (3, 2)
    assert a.crash_state == b.crash_state == ["two_writers.main.writer_a", "two_writers.main.writer_b"]


@pytest.mark.parametrize("sync", ["mutex", "chan", "wg", "once"])
def test_synchronised_stores_report_nothing(sync):
    ok(seq(two_writers(sync)))
    ok(seq(two_writers(sync), 1, 3, 2))


def test_race_false_turns_the_detector_off_and_accesses_stay_scheduling_points():
    on = seq(two_writers(None))
    off = ok(seq(two_writers(None), race=False))
    assert on.decisions == off.decisions[:len(on.decisions)]


# ---------------------------------------------------------------- one pair per edge
def pair(body):
    """``body(edge: bool) -> main``; asserts no report with the edge, a data race without."""
    ok(seq(body(True)))
    f = fails(seq(body(False)), DataRace)
    assert f.location == "x" and len(f.crash_state) == 2
    return f


def test_edge_go_statement():
    def body(edge):
        def main():
            x = Var("x", 0)
            if edge:
                x.store(1)
            gosim.go(lambda: x.store(2))
            if not edge:
                x.store(1)  # after the go statement: not ordered before the goroutine
            gosim.sleep(1)
        return main
    pair(body)


def test_edge_a_release_does_not_cover_what_follows_it():
    def body(edge):
        def main():
            x = Var("x", 0)
            x.load()  # the detector starts here, before the mutex is used
            m = gosim.Mutex()

            def g2():
                m.lock()
                if edge:
                    x.store(1)
                m.unlock()
                if not edge:
                    x.store(1)  # after the unlock

            def g3():
                with m:
                    x.load()

            gosim.go(g2)
            gosim.go(g3)
            gosim.sleep(1)
        return main
    pair(body)


@pytest.mark.parametrize("reader_side", ["rlock_after_unlock", "lock_after_runlock"])
def test_edge_rwmutex(reader_side):
    def body(edge):
        def main():
            x = Var("x", 0)
            rw = gosim.RWMutex()

            def writer():
                if edge:
                    with rw:
                        x.store(1)
                else:
                    x.store(1)

            def reader():
                if edge:
                    rw.rlock()
                    x.load()
                    rw.runlock()
                else:
                    x.load()

            first, second = (writer, reader) if reader_side == "rlock_after_unlock" else (reader, writer)
            gosim.go(first)
            gosim.go(second)
            gosim.sleep(1)
        return main
    pair(body)


def test_edge_rlocker_is_the_read_side():
    def body(edge):
        def main():
            x = Var("x", 0)
            rw = gosim.RWMutex()
            lk = rw.rlocker()

            def writer():
                with rw:
                    x.store(1)

            def reader():
                if edge:
                    lk.lock()
                x.load()
                if edge:
                    lk.unlock()

            gosim.go(writer)
            gosim.go(reader)
            gosim.sleep(1)
        return main
    pair(body)


def _chan_pair(cap, direction):
    def body(edge):
        def main():
            x = Var("x", 0)
            ch = gosim.Chan(cap)

            if direction == "send->recv":
                def g2():
                    x.store(1)
                    if edge:
                        ch.send(1)

                def g3():
                    if edge:
                        ch.recv()
                    x.store(2)
            else:  # the receive happens before the send completes (unbuffered)
                def g2():
                    x.store(1)
                    if edge:
                        ch.recv()

                def g3():
                    if edge:
                        ch.send(1)
                    x.store(2)
            gosim.go(g2)
            gosim.go(g3)
            gosim.sleep(1)
        return main
    return body


@pytest.mark.parametrize("cap", [0, 1, 3])
def test_edge_chan_send_before_receive(cap):
    pair(_chan_pair(cap, "send->recv"))


def test_edge_unbuffered_receive_before_send_completes():
    pair(_chan_pair(0, "recv->send"))


def test_edge_select_cases_carry_the_channel_edges():
    def body(edge):
        def main():
            x = Var("x", 0)
            a, b = gosim.Chan(), gosim.Chan(1)

            def g2():
                x.store(1)
                if edge:
                    gosim.select(gosim.send_case(a, 1), gosim.send_case(b, 2))

            def g3():
                if edge:
                    gosim.select(gosim.recv_case(a), gosim.recv_case(b))
                x.store(2)

            gosim.go(g2)
            gosim.go(g3)
            gosim.sleep(1)
        return main
    pair(body)


@pytest.mark.parametrize("cap", [1, 2])
def test_edge_kth_receive_before_k_plus_cap_th_send_completes(cap):
    # G3 receives once; main sends cap+1 values: with cap 1 the second send waits for that
    # receive (edge), with cap 2 it does not (no edge: the race appears)
    def main():
        x = Var("x", 0)
        ch = gosim.Chan(cap)

        def g3():
            x.store(1)
            ch.recv()

        ch.send(0)
        gosim.go(g3)
        ch.send(1)
        x.store(2)
        gosim.sleep(1)
        for _ in range(cap - 1):
            ch.send(2)

    if cap == 1:
        ok(seq(main, check_leaks=False))
    else:
        f = fails(seq(main, check_leaks=False), DataRace)
        assert {f.access[1], f.previous[1]} == {1, 2}


def test_edge_close_before_the_receive_that_sees_it():
    def body(edge):
        def main():
            x = Var("x", 0)
            ch = gosim.Chan()
            other = gosim.Chan(1)

            def g2():
                x.store(1)
                ch.close()

            def g3():
                if edge:
                    v, ok_ = ch.recv_ok()
                    assert not ok_
                x.store(2)

            gosim.go(g2)
            gosim.go(g3)
            gosim.sleep(1)
        return main
    pair(body)


def test_edge_waitgroup_done_before_the_wait_it_releases():
    def body(edge):
        def main():
            x = Var("x", 0)
            wg = gosim.WaitGroup()
            wg.add(1)

            def worker(v):
                x.store(v)
                wg.done()

            gosim.go(worker, 1)
            if edge:
                wg.wait()  # waits for the first only when the second was not started yet
            gosim.sleep(1)
            x.load()
        return main

    ok(seq(body(True), check_leaks=False))
    # without wait, the sleep orders nothing
    fails(seq(body(False), check_leaks=False), DataRace, gid=1)


def test_edge_waitgroup_wait_on_a_zero_counter_acquires_too():
    def body(edge):
        def main():
            x = Var("x", 0)
            wg = gosim.WaitGroup()
            wg.add(1)

            def worker():
                x.store(1)
                wg.done()

            gosim.go(worker)
            gosim.sleep(1)  # the worker is done: wait returns at once
            if edge:
                wg.wait()
            x.store(2)
        return main
    pair(body)


def test_edge_once_do_before_every_return():
    def body(edge):
        def main():
            x = Var("x", 0)
            once = gosim.Once()

            def init():
                x.store(1)

            def g3():
                once.do(init) if edge else None
                x.load()

            gosim.go(lambda: once.do(init))
            gosim.go(g3)
            gosim.sleep(1)
        return main
    pair(body)


def test_cond_orders_only_through_its_locker():
    """Go's -race has no edge from Signal/Broadcast to the Wait it wakes (sync/cond.go and the
    runtime's notify list carry no annotations): a signaller that writes outside L races with
    the woken waiter (Go reports it: tests/conformance CondSignalWithoutL); one that writes
    under L is ordered by L."""
    for how in ("signal", "broadcast"):
        def body(edge):
            def main():
                x = Var("x", 0)
                m = gosim.Mutex()
                c = gosim.Cond(m)

                def waiter():
                    m.lock()
                    c.wait()
                    x.load()
                    m.unlock()

                def signaller():
                    if edge:
                        m.lock()
                    x.store(1)
                    getattr(c, how)()
                    if edge:
                        m.unlock()

                gosim.go(waiter)
                gosim.sleep(1)
                gosim.go(signaller)
                gosim.sleep(5)
            return main
        pair(body)


def test_edge_context_cancel_before_done_observed_and_err():
    for observe in ("done", "err"):
        def body(edge):
            def main():
                x = Var("x", 0)
                ctx, cancel = gosim.with_cancel(gosim.background())
                child, _ = gosim.with_cancel(ctx)

                def g2():
                    x.store(1)
                    cancel()

                def g3():
                    if edge:
                        if observe == "done":
                            child.done().recv()
                        else:
                            assert child.err() is gosim.CANCELED
                    x.store(2)

                gosim.go(g2)
                if not edge:
                    gosim.sleep(1)
                gosim.go(g3)
                gosim.sleep(1)
            return main
        pair(body)


def test_edge_context_mutex_orders_a_write_before_the_child_s_first_done():
    """Go's cancelCtx locks c.mu in Done's first call, in Err, in cancel (the children under the
    parent's lock) and in a second cancel: a write before the child's first Done() is ordered
    before a read after the parent's second cancel(), through the parent's canceller. hc01's
    twin (gotwins/examples/hc01: OnStartedLeading writes ``cancel`` then waits on its child's
    Done; OnStoppedLeading reads it after Run's deferred cancels) is race-free under
    ``go test -race -count=300``; without these edges gosim reported a race there. Without the
    child's Done() after the write, nothing orders it: Go reports that schedule too."""
    def body(edge):
        def main():
            x = Var("x", 0)
            parent, cancel_parent = gosim.with_cancel(gosim.background())

            def writer():
                child, _ = gosim.with_cancel(parent)
                x.store(1)
                if edge:
                    child.done().recv()  # Done's first call: under the child's mutex

            def reader():
                parent.done().recv()  # woken by the close, before the children are cancelled
                cancel_parent()  # already cancelled: the parent's mutex, unlocked after them
                x.load()

            gosim.go(writer)
            gosim.go(reader)
            gosim.sleep(1)
            cancel_parent()
            gosim.sleep(1)
        return main
    pair(body)


def test_edge_deadline_timer_carries_with_deadline_not_the_interrupted_goroutine():
    def body(edge):
        def main():
            x = Var("x", 0)

            box = {}

            def g2():
                if edge:
                    x.store(1)
                box["ctx"], _ = gosim.with_timeout(gosim.background(), 1)
                if not edge:
                    x.store(1)  # after the deadline was armed

            def g3():
                gosim.sleep(0.5)
                box["ctx"].done().recv()
                x.store(2)

            gosim.go(g3)
            gosim.go(g2)
            gosim.sleep(5)
        return main
    pair(body)


def test_edge_after_func_start():
    def body(edge):
        def main():
            x = Var("x", 0)
            if edge:
                x.store(1)
            gosim.after_func(1, lambda: x.store(2))
            if not edge:
                x.store(1)
            gosim.sleep(5)
        return main
    pair(body)


def test_edge_timer_and_ticker_channels_carry_new_timer_and_reset():
    for kind in ("timer", "ticker"):
        def body(edge):
            def main():
                x = Var("x", 0)
                box = {}

                def g2():
                    gosim.sleep(0.5)
                    box["t"].c.recv()
                    x.store(2)
                    if kind == "ticker":
                        box["t"].stop()

                gosim.go(g2)
                if edge:
                    x.store(1)
                box["t"] = gosim.new_timer(1) if kind == "timer" else gosim.new_ticker(1)
                if not edge:
                    x.store(1)
                gosim.sleep(5)
            return main
        pair(body)


def test_edge_atomic_store_observed_by_load():
    def body(edge):
        def main():
            x = Var("x", 0)
            flag = atomic.Bool()
            other = atomic.Bool()

            def g2():
                x.store(1)
                (flag if edge else other).store(True)

            def g3():
                assert flag.load() is edge
                x.store(2)

            gosim.go(g2)
            gosim.go(g3)
            gosim.sleep(1)
        return main
    pair(body)


def test_atomic_store_is_a_release_store_not_a_merge():
    # G2: x=1; a.Store(1). G3: a.Store(2). G4 loads 2 (G3's store): G2's write is not ordered
    def main():
        x = Var("x", 0)
        a = atomic.Int64()
        gosim.go(lambda: (x.store(1), a.store(1)))
        gosim.go(lambda: a.store(2))

        def g4():
            assert a.load() == 2
            x.load()

        gosim.go(g4)
        gosim.sleep(1)

    f = fails(seq(main), DataRace, gid=4)
    assert f.previous[1] == 2


def test_edge_errgroup_wait():
    def body(edge):
        def main():
            x = Var("x", 0)
            g = errgroup.Group()
            g.go(lambda: x.store(1))
            if edge:
                assert g.wait() is None
            else:
                gosim.sleep(1)
            x.store(2)
        return main
    pair(body)


# ---------------------------------------------------------------- Map joins the detector
def _map_writers():
    def main():
        m = gosim.Map(name="m")
        gosim.go(lambda: m.__setitem__("a", 1))
        gosim.go(lambda: m.get("a"))
        gosim.sleep(1)
    return main


def test_map_read_write_pair_unordered_is_a_data_race_without_overlap():
    f = fails(seq(_map_writers(), race=True), DataRace, gid=3)
    assert f.location == "m" and f.access[0] == "Read" and f.previous[0] == "Write"


def test_map_without_the_detector_keeps_its_old_behaviour():
    ok(seq(_map_writers()))  # auto mode: no Shared/Var in the run, the detector never starts
    ok(seq(_map_writers(), race=False))


def test_overlapping_map_writes_are_a_race_first_with_the_detector_on():
    """Go's mapassign calls racewritepc before its hashWriting check, so under -race (halt on
    the first report) two unordered writes are a data race at the second write's entry, never
    the fatal; without the detector the same schedules end in ``concurrent map writes``."""
    from fuzzfarm.strategies import ReplayStrategy

    def main():
        m = gosim.Map(name="m")
        gosim.go(lambda: m.__setitem__("a", 1))
        gosim.go(lambda: m.__setitem__("b", 1))
        gosim.sleep(1)

    # G3 enters during G2's write (entry check); then one where both writes overlap past their
    # entry checks (each write has three points: map.write.enter, .begin, and inside)
    for decisions, gid in (([1, 2, 2, 2, 3], 3), ([1, 2, 2, 3, 3, 2, 3, 2], 2)):
        rep = gosim.run(main, strategy=ReplayStrategy(decisions, allow_incomplete=True), race=True)
        f = fails(rep, DataRace, gid=3)
        assert f.location == "m"
        rep = gosim.run(main, strategy=ReplayStrategy(decisions, allow_incomplete=True), race=False)
        fails(rep, gosim.ConcurrentMapWrites, gid=gid)


# ---------------------------------------------------------------- determinism, late start
def test_reports_are_deterministic():
    from fuzzfarm.strategies import BytesStrategy

    data = bytes(range(7, 200, 3))
    a = gosim.run(two_writers(None), strategy=BytesStrategy(data))
    b = gosim.run(two_writers(None), strategy=BytesStrategy(data))
    assert a.to_json() == b.to_json() and a.failure is not None


def test_late_start_with_values_already_buffered_has_no_false_report():
    # the detector starts at the first Var access, with two values already in the buffer
    def main():
        ch = gosim.Chan(3)
        ch.send(0)
        ch.send(0)
        x = Var("x", 0)

        def g2():
            x.store(1)
            ch.send(1)

        def g3():
            for _ in range(3):
                ch.recv()
            x.store(2)

        gosim.go(g2)
        gosim.go(g3)
        gosim.sleep(1)

    ok(seq(main))
    ok(seq(main, 1, 3, 2))


def test_shared_outside_a_run_is_plain():
    e = Elector()
    e.observed = 5
    assert e.observed == 5 and Elector.observed.label == "Elector.observed"


def test_waitgroup_add_from_zero_unordered_with_a_blocked_wait_is_a_data_race():
    # Go's waitgroup.go race annotations: Add raising the counter from 0 reads wg.sema, the
    # first Wait that blocks writes it. G2 waits (blocks: counter 1), main's Done releases it,
    # then G3's Add(1) from zero is not ordered after G2's Wait: reported, as -race does.
    def body(edge):
        def main():
            wg = gosim.WaitGroup("wg")
            wg.add(1)
            started = gosim.Chan()
            gosim.go(lambda: (started.send(None), wg.wait()))
            started.recv()
            gosim.sleep(1)  # G2 blocks in wait
            wg.done()
            gosim.sleep(1)
            after = gosim.Chan()

            def adder():
                if edge:
                    after.recv()  # handed over by main after the wait returned... and main saw it
                wg.add(1)
                wg.done()

            gosim.go(adder)
            if edge:
                gosim.sleep(1)
                after.send(None)
            gosim.sleep(2)
        return main

    f = fails(seq(body(False), race=True), DataRace)
    assert f.location == "wg.sema" and {f.access[0], f.previous[0]} == {"Read", "Write"}


def test_every_shared_and_var_access_is_a_scheduling_point_where_another_goroutine_may_run():
    def main():
        e = Elector()  # a write
        x = Var("x", 0)
        seen = []

        def other():
            seen.append(x.load())

        gosim.go(other)
        x.store(1)  # G2 preferred at this scheduling point: it runs before the store
        e.observed
        gosim.sleep(1)
        assert seen == [0]

    rep = ok(seq(main, 2, 1, race=False, trace=True))
    kinds = [(ev.kind, ev.detail) for ev in rep.trace.events]
    assert ("write", "Elector.observed") in kinds and ("read", "Elector.observed") in kinds
    assert ("write", "x") in kinds and ("read", "x") in kinds


def _semaphore(cap: int):
    """G2 and G3 each take a slot of a channel semaphore of capacity ``cap``, bump a Var, give
    the slot back. Capacity 1 is a mutex (the k-th receive happens before the (k+1)-th send
    completes); capacity 2 orders nothing, so Go's -race reports the second goroutine's access."""

    def main():
        x = Var("x", 0)
        sem = gosim.Chan(cap, name="sem")
        wg = gosim.WaitGroup("wg")
        wg.add(2)

        def crit():
            sem.send(0)
            x.store(x.load() + 1)
            sem.recv()
            wg.done()

        gosim.go(crit, name="A")
        gosim.go(crit, name="B")
        wg.wait()
    return main


@pytest.mark.parametrize("race", [None, True])  # None: the detector starts at the first Var access,
def test_edge_buffered_receive_before_the_send_cap_later(race):  # after A's send: slots still count
    ok(seq(_semaphore(1), race=race))
    f = fails(seq(_semaphore(2), race=race), DataRace, gid=3)
    assert f.location == "x"


@pytest.mark.parametrize("bad", ["maybe", "False", 1, 0, []])
def test_race_accepts_only_none_true_false(bad):
    with pytest.raises(TypeError, match="use None"):
        seq(_semaphore(1), race=bad)


def test_a_shared_attached_after_its_class_says_so():
    class Late:
        pass

    Late.v = Shared(default=0)  # no __set_name__: it would have no field name
    with pytest.raises(TypeError, match="declare it in the class body"):
        Late().v = 1


# ------------------------------------------- Go's channel annotations (tests/conformance too)
def test_a_slot_keeps_the_passers_clock_from_before_its_acquire():
    """send -> receive -> send on a capacity-1 channel: the second sender does not inherit the
    first sender's clock through the receiver (racereleaseacquire stores the pre-acquire clock)."""
    def main():
        x = Var("x", 0)
        ch = gosim.Chan(1)

        def second():
            ch.send(2)  # waits for main's receive of the first value
            x.load()
        gosim.go(lambda: (x.store(1), ch.send(1)))
        gosim.go(second)
        gosim.sleep(1)
        ch.recv()
        ch.recv()
    f = fails(seq(main, 2, 3, 1), DataRace, gid=3)
    assert f.location == "x"


def test_zero_size_elements_share_one_clock():
    """Two sends into a chan struct{} of capacity 2 are ordered, as -race sees them; with
    elements of non-zero size they are not."""
    def body(edge):
        def main():
            x = Var("x", 0)
            ch = gosim.Chan(2, zero_size=edge)

            def second():
                gosim.sleep(1)
                ch.send(None)
                x.load()
            gosim.go(lambda: (x.store(1), ch.send(None)))
            gosim.go(second)
            gosim.sleep(2)
        return main
    pair(body)


def test_a_send_not_ordered_with_the_close_is_a_race_on_the_channel():
    def body(edge):
        def main():
            x = Var("x", 0)  # starts the detector (race=None)
            x.load()
            ch = gosim.Chan(1, name="ch")
            done = gosim.Chan()

            def sender():
                ch.send(1)
                done.send(True)
            gosim.go(sender)
            if edge:
                done.recv()
            gosim.sleep(1)
            ch.close()
            if not edge:
                done.recv()
        return main
    ok(seq(body(True)))
    f = fails(seq(body(False)), DataRace)
    assert f.location == "ch"


def test_len_of_a_map_is_a_read():
    def body(edge):
        def main():
            x = Var("x", 0)
            x.load()
            m = gosim.Map(name="x")
            wg = gosim.WaitGroup()
            wg.add(1)
            gosim.go(lambda: (m.__setitem__(1, 1), wg.done()))
            if edge:
                wg.wait()
            len(m)
            if not edge:
                wg.wait()
        return main
    ok(seq(body(True)))
    assert fails(seq(body(False)), DataRace).location == "x"
