"""gosim twins of tests/conformance/go/plain_cases.go: panics, fatal errors, deadlocks and what
a run observes. Each returns the text Go's twin passes to ``result`` (Go's ``%v`` of a bool is
``true``/``false``)."""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import atomic

from conform import DEADLOCK, case, ok

MS = 0.001
HOUR = 3600.0


def b(v: bool) -> str:
    return "true" if v else "false"


@case("panic: close of nil channel")
def close_nil_chan():
    gosim.close(None)


@case("panic: close of closed channel")
def close_closed_chan():
    ch = gosim.Chan()
    ch.close()
    ch.close()


@case("panic: send on closed channel")
def send_on_closed_chan():
    ch = gosim.Chan(1)
    ch.close()
    ch.send(1)


@case("panic: send on closed channel")
def send_on_closed_while_blocked():
    ch = gosim.Chan()

    def closer():
        gosim.sleep(10 * MS)
        ch.close()
    gosim.go(closer)
    ch.send(1)


@case(ok("0 false"))
def recv_on_closed_chan():
    ch = gosim.Chan()
    ch.close()
    v, k = ch.recv_ok()
    return f"{v or 0} {b(k)}"


@case(ok("7 true 0 false"))
def recv_closed_after_drain():
    ch = gosim.Chan(2)
    ch.send(7)
    ch.close()
    v1, k1 = ch.recv_ok()
    v2, k2 = ch.recv_ok()
    return f"{v1 or 0} {b(k1)} {v2 or 0} {b(k2)}"


@case(DEADLOCK)
def send_nil_chan_blocks():
    gosim.send(None, 1)


@case(DEADLOCK)
def recv_nil_chan_blocks():
    gosim.recv_ok(None)


@case(DEADLOCK)
def select_no_cases():
    gosim.select()


@case(ok("default"))
def select_default_nothing_ready():
    ch = gosim.Chan()
    i, _, _ = gosim.select(gosim.recv_case(ch), default=True)
    return "default" if i == gosim.DEFAULT else "recv"


@case(ok("recv 1"))
def select_default_ready():
    ch = gosim.Chan(1)
    ch.send(1)
    i, v, _ = gosim.select(gosim.recv_case(ch), default=True)
    return "default" if i == gosim.DEFAULT else f"recv {v}"


@case("panic: send on closed channel")
def select_send_on_closed():
    ch = gosim.Chan(1)
    ch.close()
    gosim.select(gosim.send_case(ch, 1), default=True)


@case(DEADLOCK)
def select_nil_cases_only():
    gosim.select(gosim.recv_case(None), gosim.send_case(None, 1))


@case(ok("12"))
def range_over_closed_chan():
    ch = gosim.Chan(3)
    ch.send(1)
    ch.send(2)
    ch.close()
    s = 0
    for v in ch:
        s = s * 10 + v
    return str(s)


@case(ok("2 3 1 0 0"))
def len_cap():
    ch = gosim.Chan(3)
    ch.send(1)
    ch.send(2)
    m = gosim.Map({"a": 1})
    # a nil channel has no gosim object: Go's len/cap of nil are 0
    return f"{len(ch)} {ch.cap} {len(m)} 0 0"


@case("panic: makechan: size out of range")
def make_chan_negative():
    gosim.Chan(-1)


@case("fatal error: sync: unlock of unlocked mutex")
def unlock_of_unlocked_mutex():
    gosim.Mutex().unlock()


@case("fatal error: sync: RUnlock of unlocked RWMutex")
def r_unlock_of_unlocked():
    gosim.RWMutex().runlock()


@case("fatal error: sync: Unlock of unlocked RWMutex")
def unlock_of_unlocked_rw_mutex():
    gosim.RWMutex().unlock()


@case(DEADLOCK)
def mutex_relock_deadlock():
    mu = gosim.Mutex()
    mu.lock()
    mu.lock()


@case("panic: sync: negative WaitGroup counter")
def negative_wait_group_counter():
    wg = gosim.WaitGroup()
    wg.add(1)
    wg.done()
    wg.done()


@case(ok(), "panic: sync: WaitGroup is reused before previous Wait has returned", procs=6)
def wait_group_reuse():
    wg = gosim.WaitGroup()
    wg.add(1)

    def w():
        wg.done()
        wg.add(1)
        wg.done()
    gosim.go(w)
    wg.wait()
    gosim.sleep(5 * MS)


@case(ok("2"))
def wait_group_go():
    wg = gosim.WaitGroup()
    n = atomic.Int32()
    wg.go(lambda: n.add(1))
    wg.go(lambda: n.add(1))
    wg.wait()
    return str(n.load())


@case(ok("uwr"), ok("ruw"), ok("urw"))
def rw_mutex_writer_preference():
    """Go shows ``uwr``: the reader arriving while the writer waits queues behind it (writer
    preference). ``ruw``/``urw``: the reader got in before the writer announced itself (the
    sleep outrun: a slow writer). The writer always comes after ``u``, as main's read lock
    is released after it."""
    rw = gosim.RWMutex()
    mu = gosim.Mutex()
    order = []
    wg = _wg(2)

    def log(s):
        mu.lock()
        order.append(s)
        mu.unlock()

    def writer():
        rw.lock()
        log("w")
        rw.unlock()
        wg.done()

    def reader():
        rw.rlock()
        log("r")
        rw.runlock()
        wg.done()
    rw.rlock()
    gosim.go(writer)
    gosim.sleep(10 * MS)
    gosim.go(reader)
    gosim.sleep(10 * MS)
    log("u")
    rw.runlock()
    wg.wait()
    return "".join(order)


def _wg(n):
    wg = gosim.WaitGroup()
    wg.add(n)
    return wg


@case(DEADLOCK, ok())
def rw_mutex_recursive_r_lock_deadlock():
    rw = gosim.RWMutex()
    rw.rlock()

    def writer():
        rw.lock()
        rw.unlock()
    gosim.go(writer)
    gosim.sleep(10 * MS)
    rw.rlock()
    rw.runlock()
    rw.runlock()


# A goroutine may be slow for any virtual time, an hour too (the strategy fires a timer
# early): under Go <= 1.22 timers Stop then finds the timer fired (false); Go >= 1.23 drains
# the unreceived value and says true. Go shows only the fast case.
@case(ok("true false"), old=(ok("true false"), ok("false false")))
def timer_stop_before_fire():
    t = gosim.new_timer(HOUR)
    a = t.stop()
    return f"{b(a)} {b(t.stop())}"


@case(ok("false false"), old=(ok("false false"),))
def timer_stop_after_recv():
    t = gosim.new_timer(MS)
    t.c.recv()
    a = t.stop()
    r = t.reset(MS)
    t.c.recv()
    return f"{b(a)} {b(r)}"


# false (Go <= 1.22 timers): the hour timer fired first (the slow case) and Reset left its value.
@case(ok("true"), old=(ok("true"), ok("false")))
def timer_reset_active():
    t = gosim.new_timer(HOUR)
    a = t.reset(MS)
    t.c.recv()
    return b(a)


# Go 1.23 timers: an expired timer's unreceived value is discarded by Stop, which returns true;
# Go <= 1.22: Stop returns false and the value is received after it (docs/RUNTIME.md#go-version).
@case(ok("true none"), old=(ok("false stale"),))
def timer_stop_after_fire_not_received():
    t = gosim.new_timer(MS)
    gosim.sleep(20 * MS)
    a = t.stop()
    i, _, _ = gosim.select(gosim.recv_case(t.c), default=True)
    return f"{b(a)} {'none' if i == gosim.DEFAULT else 'stale'}"


@case(ok("context canceled|context canceled"))
def context_cancel_child():
    parent, cancel = gosim.with_cancel(gosim.background())
    child, cancel_child = gosim.with_cancel(parent)
    done = gosim.Chan()

    def w():
        child.done().recv()
        done.send(str(child.err()))
    gosim.go(w)
    cancel()
    parent.done().recv()
    res = f"{parent.err()}|{done.recv()}"
    cancel_child()
    return res


@case(ok("context deadline exceeded true"))
def context_deadline():
    ctx, cancel = gosim.with_timeout(gosim.background(), 5 * MS)
    ctx.done().recv()
    res = f"{ctx.err()} {b(ctx.err() is gosim.DEADLINE_EXCEEDED)}"
    cancel()
    return res


@case(ok("context canceled"))
def context_cancel_twice():
    ctx, cancel = gosim.with_cancel(gosim.background())
    cancel()
    cancel()
    ctx.done().recv()
    return str(ctx.err())


@case(ok("2"))
def cond_broadcast_wakes_all():
    mu = gosim.Mutex()
    c = gosim.Cond(mu)
    state = {"ready": False, "n": 0}
    wg = _wg(2)

    def waiter():
        mu.lock()
        while not state["ready"]:
            c.wait()
        state["n"] += 1
        mu.unlock()
        wg.done()
    for _ in range(2):
        gosim.go(waiter)
    mu.lock()
    state["ready"] = True
    c.broadcast()
    mu.unlock()
    wg.wait()
    return str(state["n"])


@case(ok("-2147483648 4294967295 -9223372036854775808"))
def atomic_int_wrap():
    i = atomic.Int32()
    i.store(2**31 - 1)
    a = i.add(1)
    u = atomic.Uint32()
    bb = u.add(2**32 - 1)
    j = atomic.Int64()
    j.store(2**63 - 1)
    c = j.add(1)
    return f"{a} {bb} {c}"


@case(ok("true false 5 false 9 true"))
def atomic_c_a_s_swap():
    i = atomic.Int64()
    a = i.compare_and_swap(0, 5)
    bb = i.compare_and_swap(0, 6)
    c = i.swap(9)
    f = atomic.Bool()
    d = f.swap(True)
    return f"{b(a)} {b(bb)} {c} {b(d)} {i.load()} {b(f.load())}"


@case("panic: sync/atomic: store of nil value into Value")
def atomic_value_store_nil():
    atomic.Value().store(None)


@case("panic: sync/atomic: store of inconsistently typed value into Value")
def atomic_value_inconsistent():
    v = atomic.Value()
    v.store(1)
    v.store("x")


@case("panic: non-positive interval for NewTicker", old=("panic: non-positive interval for NewTicker",))
def new_ticker_non_positive():
    gosim.new_ticker(0)


@case(ok("1"))
def once_runs_once():
    once = gosim.Once()
    n = [0]

    def inc():
        n[0] += 1
    once.do(inc)
    once.do(inc)
    return str(n[0])
