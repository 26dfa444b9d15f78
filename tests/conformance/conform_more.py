"""gosim twins of tests/conformance/go/more_cases.go: context, timer and select edges under
the race detector, and Go's runtime errors."""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import atomic

from conform import DEADLOCK, RACE, case, ok

MS = 0.001
HOUR = 3600.0


@case(ok("1"), mode="race")
def context_cancel_orders_done():
    ctx, cancel = gosim.with_cancel(gosim.background())
    x = gosim.Var("x", 0)

    def w():
        x.store(1)
        cancel()
    gosim.go(w)
    ctx.done().recv()
    return str(x.load())


@case(ok("seen"), ok("unseen"), mode="race")
def context_err_orders():
    ctx, cancel = gosim.with_cancel(gosim.background())
    x = gosim.Var("x", 0)
    wg = gosim.WaitGroup()
    wg.add(1)

    def w():
        x.store(1)
        cancel()
        wg.done()
    gosim.go(w)
    if ctx.err() is not None:
        x.load()
        res = "seen"
    else:
        res = "unseen"
    wg.wait()
    return res


@case(ok(), mode="race", old=(ok(),))
def after_func_orders():
    x = gosim.Var("x", 0)
    done = gosim.Chan()
    x.store(1)

    def f():
        x.load()
        done.send(True)
    gosim.after_func(MS, f)
    done.recv()


@case(RACE, mode="race", old=(RACE,))
def after_func_armed_before_write():
    x = gosim.Var("x", 0)
    done = gosim.Chan()

    def f():
        x.load()
        done.send(True)
    gosim.after_func(5 * MS, f)
    x.store(1)
    done.recv()


# race: the hour timer fires before the Reset (a goroutine an hour slow: the strategy may fire
# a timer early); Go shows the fast case. "ok" is reachable only through the Reset edge.
@case(ok(), RACE, mode="race", old=(ok(), RACE))
def timer_reset_orders_tick():
    t = gosim.new_timer(HOUR)
    x = gosim.Var("x", 0)
    done = gosim.Chan()

    def receiver():
        t.c.recv()
        x.load()
        done.send(True)

    def resetter():
        x.store(1)
        t.reset(MS)
    gosim.go(receiver)
    gosim.go(resetter)
    done.recv()


@case(RACE, mode="race")
def select_send_races_close():
    ch = gosim.Chan(1)
    wg = gosim.WaitGroup()
    wg.add(1)

    def w():
        gosim.select(gosim.send_case(ch, 1), default=True)
        wg.done()
    gosim.go(w)
    gosim.sleep(10 * MS)
    ch.close()
    wg.wait()


@case(RACE, mode="race")
def map_read_races_write():
    m = gosim.Map({1: 1})
    wg = gosim.WaitGroup()
    wg.add(1)

    def w():
        m[1] = 2
        wg.done()
    gosim.go(w)
    m[1]
    wg.wait()


@case(ok("0"), ok("2"), mode="race")
def map_range_after_write_ordered():
    m = gosim.Map()
    mu = gosim.Mutex()
    wg = gosim.WaitGroup()
    wg.add(1)

    def w():
        mu.lock()
        m[1] = 2
        mu.unlock()
        wg.done()
    gosim.go(w)
    mu.lock()
    s = sum(m.values())
    mu.unlock()
    wg.wait()
    return str(s)


@case(ok("relocked"))
def unlock_by_another_goroutine():
    mu = gosim.Mutex()
    mu.lock()
    done = gosim.Chan()

    def w():
        mu.unlock()
        done.send(True)
    gosim.go(w)
    done.recv()
    mu.lock()
    return "relocked"


@case(ok("false false"))
def close_wakes_every_receiver():
    ch = gosim.Chan()
    res = gosim.Chan(2)

    def r():
        _, k = ch.recv_ok()
        res.send(k)
    for _ in range(2):
        gosim.go(r)
    gosim.sleep(5 * MS)
    ch.close()
    a, b = res.recv(), res.recv()
    return f"{str(a).lower()} {str(b).lower()}"


@case("panic: assignment to entry in nil map")
def nil_map_write():
    m = None
    m["a"] = 1


@case("panic: runtime error: integer divide by zero")
def divide_by_zero():
    a, b = 1, 0
    a // b


@case("panic: runtime error: invalid memory address or nil pointer dereference")
def nil_func_call():
    f = None
    f()


# Go 1.23+: a ticker nobody receives from keeps no goroutine alive, so Go reports the deadlock.
@case(DEADLOCK, old=("hang",), old_differs="Go <= 1.22 timers: a running ticker keeps Go's deadlock check "
      "quiet forever (the process hangs); gosim reports the goroutine blocked for ever as Go >= 1.23 does "
      "(docs/RUNTIME.md#go-version)")
def blocked_with_ticker_running():
    t = gosim.new_ticker(MS)
    gosim.recv_ok(None)
    t.stop()


# ok: Wait ran before the Add (counter zero: it returns without blocking, no write of sema).
@case(RACE, ok(), mode="race")
def wait_group_add_unordered_with_wait():
    wg = gosim.WaitGroup()

    def w():
        wg.add(1)
        gosim.sleep(10 * MS)
        wg.done()
    gosim.go(w)
    gosim.sleep(5 * MS)
    wg.wait()
    gosim.sleep(15 * MS)


def _b(v) -> str:
    return "true" if v else "false"


@case(ok("true false true"))
def mutex_try_lock():
    mu = gosim.Mutex()
    a = mu.try_lock()
    b = mu.try_lock()
    mu.unlock()
    c = mu.try_lock()
    return f"{_b(a)} {_b(b)} {_b(c)}"


@case(ok("true false true"))
def r_locker_locks():
    rw = gosim.RWMutex()
    lk = rw.rlocker()
    lk.lock()
    a = rw.try_rlock()
    b = rw.try_lock()
    rw.runlock()
    lk.unlock()
    c = rw.try_lock()
    return f"{_b(a)} {_b(b)} {_b(c)}"


@case("panic: non-positive interval for Ticker.Reset", old=("panic: non-positive interval for Ticker.Reset",))
def ticker_reset_non_positive():
    gosim.new_ticker(HOUR).reset(0)


@case("panic: sync/atomic: swap of nil value into Value")
def atomic_value_swap_nil():
    atomic.Value().swap(None)


@case("panic: sync/atomic: compare and swap of nil value into Value")
def atomic_value_c_a_s_nil():
    atomic.Value().compare_and_swap(None, None)


@case("panic: sync/atomic: compare and swap of inconsistently typed values")
def atomic_value_c_a_s_mixed_old_new():
    atomic.Value().compare_and_swap(1, "x")


@case("panic: sync/atomic: compare and swap of inconsistently typed value into Value")
def atomic_value_c_a_s_other_type():
    v = atomic.Value()
    v.store(1)
    v.compare_and_swap("a", "b")


@case(ok("context canceled"))
def context_child_done_after_parent_err():
    parent, cancel = gosim.with_cancel(gosim.background())
    child, cancel_child = gosim.with_cancel(parent)
    res = gosim.Chan()

    def w():
        child.done().recv()
        res.send(str(parent.err()))
    gosim.go(w)
    cancel()
    out = res.recv()
    cancel_child()
    return out


@case("panic: runtime error: index out of range [5] with length 3")
def index_out_of_range():
    s = [1, 2, 3]
    i = 5
    s[i]


@case("panic: runtime error: index out of range [-5]")
def negative_index():
    s = [1, 2, 3]
    i = -5
    s[i]


@case(ok("a1"), ok("b2"), procs=12)
def select_both_ready():
    a, b = gosim.Chan(1), gosim.Chan(1)
    a.send(1)
    b.send(2)
    i, v, _ = gosim.select(gosim.recv_case(a), gosim.recv_case(b))
    return f"{'ab'[i]}{v}"
