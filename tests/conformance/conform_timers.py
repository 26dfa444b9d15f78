"""gosim twins of tests/conformance/go/timer_cases.go: each runs under both timer semantics
(``old=``: Go <= 1.22 timers, docs/RUNTIME.md#go-version)."""

from __future__ import annotations

from fuzzfarm import gosim

from conform import case, ok

MS = 0.001
HOUR = 3600.0


def _b(v: bool) -> str:
    return "true" if v else "false"


def _stale_or(v: float, at: float) -> str:
    return "stale" if v < at else "fresh"


# fresh: the hour timer fired early (a goroutine an hour slow), which Go does not show.
@case(ok("true none"), ok("true fresh"), old=(ok("false stale"),))
def timer_reset_after_fire_not_received():
    t = gosim.new_timer(MS)
    gosim.sleep(20 * MS)
    at = gosim.now()
    r = t.reset(HOUR)
    i, v, _ = gosim.select(gosim.recv_case(t.c), default=True)
    return f"{_b(r)} {'none' if i == gosim.DEFAULT else _stale_or(v, at)}"


@case(ok("true false"), old=(ok("false false"),))
def timer_stop_twice_after_fire():
    t = gosim.new_timer(MS)
    gosim.sleep(20 * MS)
    a = t.stop()
    return f"{_b(a)} {_b(t.stop())}"


@case(ok("0 0"), old=(ok("1 1"),))
def timer_len_cap():
    t = gosim.new_timer(MS)
    gosim.sleep(20 * MS)
    return f"{len(t.c)} {t.c.cap}"


@case(ok("0 0"), old=(ok("1 1"),))
def ticker_len_cap():
    t = gosim.new_ticker(MS)
    gosim.sleep(20 * MS)
    n, c = len(t.c), t.c.cap
    t.stop()
    return f"{n} {c}"


@case(ok("none"), old=(ok("stale"),))
def ticker_stop_drains():
    t = gosim.new_ticker(MS)
    gosim.sleep(20 * MS)
    at = gosim.now()
    t.stop()
    i, v, _ = gosim.select(gosim.recv_case(t.c), default=True)
    return "none" if i == gosim.DEFAULT else _stale_or(v, at)


@case(ok("none"), ok("fresh"), old=(ok("stale"),))
def ticker_reset_drains():
    t = gosim.new_ticker(MS)
    gosim.sleep(20 * MS)
    at = gosim.now()
    t.reset(HOUR)
    i, v, _ = gosim.select(gosim.recv_case(t.c), default=True)
    t.stop()
    return "none" if i == gosim.DEFAULT else _stale_or(v, at)


# false false: the hour timer ran first (a goroutine an hour slow); Go shows the fast case.
@case(ok("true false"), ok("false false"), old=(ok("true false"), ok("false false")))
def after_func_stop():
    f = gosim.after_func(HOUR, lambda: None)
    a = f.stop()
    return f"{_b(a)} {_b(f.stop())}"


@case(ok("false"), old=(ok("false"),))
def after_func_stop_after_run():
    done = gosim.Chan()
    f = gosim.after_func(MS, done.close)
    done.recv()
    return _b(f.stop())


@case(ok("timeout"), old=(ok("timeout"),))
def after_in_select():
    ch = gosim.Chan()
    i, _, _ = gosim.select(gosim.recv_case(ch), gosim.recv_case(gosim.after(MS)))
    return "ch" if i == 0 else "timeout"


@case(ok("waited"), old=(ok("stale"),))
def backoff_timer_zero_reset():
    t = gosim.new_timer(0)
    gosim.sleep(MS)
    start = gosim.now()
    t.reset(20 * MS)
    v = t.c.recv()
    return "stale" if v < start else "waited"
