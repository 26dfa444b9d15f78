"""The virtual clock: ``now``, ``sleep``, ``after``, timers and tickers (Go's ``time``).

Virtual seconds are floats starting at 0. Time moves only inside the scheduler: when nothing
is runnable it jumps to the earliest timer, and a decision may fire a timer before runnable
goroutines have run (see ``Runtime._decide``). Timer deliveries never block: a timer or
ticker channel holds one value and a tick that finds it full is dropped. What else a timer
channel does depends on the Go version the run models (``gosim.run(go_version=...)``,
``goversion``): from Go 1.23 on it presents as unbuffered (``len``/``cap`` 0) and ``Stop``/
``Reset`` drain an unreceived value, reporting the timer as still pending (runtime/time.go
``stop``/``modify``, ``timerchandrain``); before, the value stays and can be received stale.
A timer fires at exactly the virtual time it was armed for (``now() + d``), never rounded.
"""

from __future__ import annotations

import sys
from typing import Callable

from . import race as _race
from .chan import ASYNC_TIMER, SYNC_TIMER, Chan, old_timers_effect
from .failures import first_project_frame_of
from .gopanic import go_panic
from .runtime import current_runtime


def _timer_chan(rt, label: str) -> Chan:
    """A timer's channel: one value's buffer; from Go 1.23 on it presents as unbuffered
    (runtime/chan.go ``chanlen``/``chancap``), before its len and cap are the buffer's."""
    c = Chan(1, name=f"{label}.C")
    c.timer = SYNC_TIMER if rt.sync_timers else ASYNC_TIMER
    return c


def _stop_chan(rt, c: Chan, pending: bool, op: str) -> bool:
    """What Stop/Reset do to a timer's channel once the timer is disarmed (``pending``: it was
    armed). Go >= 1.23 drains an unreceived value and reports the timer as pending; before,
    the value stays (the Stop/Reset returns false for it) and is received later, stale."""
    if rt.sync_timers:
        return c.drain_for_timer() or pending
    if c.buf:
        old_timers_effect(rt, f"{op} left a sent value in {c.label} (Go >= 1.23 drains it{'' if pending else ' and returns true'})")
    return pending


def now() -> float:
    """Virtual seconds since the run started. Go: ``time.Now()``. Raises RuntimeError outside a run."""
    return current_runtime().now


def since(t: float) -> float:
    """Virtual seconds elapsed since ``t``. Go: ``time.Since``."""
    return current_runtime().now - t


def sleep(d: float) -> None:
    """Block the calling goroutine for ``d`` virtual seconds (wakes at exactly now + d; other
    goroutines may run first). ``d <= 0`` is a bare scheduling point. Go: ``time.Sleep``."""
    rt = current_runtime()
    if d <= 0:
        rt.sched("sleep", "0s")
        return
    g = rt.cur
    rt.add_timer_at(rt.now + d, lambda: rt.ready(g), f"sleep G{g.gid} {d:g}s")
    rt.park("sleep", f"{d:g}s")


class Timer:
    """``time.NewTimer``: channel ``c`` receives the virtual time once, at now + ``d`` seconds.

    With ``func`` set (``time.AfterFunc``) no channel is used: ``func`` runs in a new goroutine.
    """

    __slots__ = ("rt", "c", "func", "entry", "label", "site", "hb")

    def __init__(self, d: float, func: Callable[[], None] | None = None, name: str | None = None):
        self.rt = current_runtime()
        self.label = name or f"timer#{self.rt.new_object_id()}"
        self.func = func
        self.site = None
        if func is not None:
            f = first_project_frame_of(sys._getframe(1))
            self.site = str(f) if f is not None else None
        self.c = None if func is not None else _timer_chan(self.rt, self.label)
        self.entry = None
        self._arm(d)

    def _fire(self) -> None:
        self.entry = None
        if self.func is not None:
            g = self.rt.spawn(self.func, (), name=f"{self.label} func")
            g.created_by = self.site
            if self.rt.race is not None:  # AfterFunc/Reset happens before f starts
                self.rt.race.start_from(g, self.hb)
        else:
            self.c.try_send_from_timer(self.rt.now, self.hb)

    def _arm(self, d: float) -> None:
        rt = self.rt
        self.hb = _race.snapshot(rt)  # armed by the running goroutine (NewTimer/AfterFunc/Reset)
        self.entry = rt.add_timer_at(rt.now + max(0.0, d), self._fire, self.label)

    def stop(self) -> bool:
        """Prevent the timer from firing; True if it was still pending. Go >= 1.23: a value sent
        but not received is drained and counts as pending; Go <= 1.22: it stays in ``c``
        (``goversion``). Go: ``(*Timer).Stop``."""
        self.rt.sched("timer.stop", self.label)
        return self._disarm("Stop")

    def _disarm(self, op: str) -> bool:
        pending = False
        if self.entry is not None:
            pending = self.rt.cancel_timer(self.entry)
            self.entry = None
        if self.c is None:  # AfterFunc: no channel
            return pending
        return _stop_chan(self.rt, self.c, pending, op)

    def reset(self, d: float) -> bool:
        """Re-arm for ``d`` seconds from now; True if it was still pending (as ``stop``).
        Go: ``(*Timer).Reset``."""
        self.rt.sched("timer.stop", self.label)
        was = self._disarm("Reset")
        self._arm(d)
        return was


class Ticker:
    """``time.NewTicker``: channel ``c`` receives the virtual time every ``d`` seconds (a tick
    that finds the channel full is dropped). Raises ValueError for ``d <= 0`` (Go panics:
    ``non-positive interval for NewTicker``)."""

    __slots__ = ("rt", "c", "d", "entry", "label", "hb")

    def __init__(self, d: float, name: str | None = None):
        if d <= 0:
            raise go_panic(ValueError, "non-positive interval for NewTicker")
        self.rt = current_runtime()
        self.label = name or f"ticker#{self.rt.new_object_id()}"
        self.c = _timer_chan(self.rt, self.label)
        self.d = d
        self.entry = None
        self.hb = _race.snapshot(self.rt)  # NewTicker/Reset, carried by every tick
        self._arm()

    def _arm(self) -> None:
        rt = self.rt
        self.entry = rt.add_timer_at(rt.now + self.d, self._fire, self.label, self._idle)

    def _idle(self) -> bool:
        # firing now would change nothing: the channel is full and nobody waits to receive
        return self.c.idle_for_timer()

    def _fire(self) -> None:
        self.c.try_send_from_timer(self.rt.now, self.hb)
        self._arm()

    def stop(self) -> None:
        """Stop ticking (no value is sent afterwards; Go >= 1.23 also drains an unreceived
        tick). Go: ``(*Ticker).Stop``."""
        self.rt.sched("ticker.stop", self.label)
        self._disarm("Ticker.Stop")

    def _disarm(self, op: str) -> None:
        if self.entry is not None:
            self.rt.cancel_timer(self.entry)
            self.entry = None
        _stop_chan(self.rt, self.c, True, op)

    def reset(self, d: float) -> None:
        """Tick every ``d`` seconds from now on. Go: ``(*Ticker).Reset``; ValueError for d <= 0."""
        if d <= 0:
            raise go_panic(ValueError, "non-positive interval for Ticker.Reset")
        self.rt.sched("ticker.stop", self.label)
        self._disarm("Ticker.Reset")
        self.d = d
        self.hb = _race.snapshot(self.rt)
        self._arm()


def new_timer(d: float, name: str | None = None) -> Timer:
    """Go: ``time.NewTimer(d)`` (virtual seconds)."""
    return Timer(d, name=name)


def after_func(d: float, f: Callable[[], None], name: str | None = None) -> Timer:
    """Run ``f`` in its own goroutine after ``d`` virtual seconds. Go: ``time.AfterFunc``."""
    return Timer(d, func=f, name=name)


def new_ticker(d: float, name: str | None = None) -> Ticker:
    """Go: ``time.NewTicker(d)`` (virtual seconds). ValueError for d <= 0."""
    return Ticker(d, name=name)


def after(d: float) -> Chan:
    """A channel that receives the virtual time after ``d`` seconds. Go: ``time.After``."""
    return Timer(d, name=f"after({d:g}s)").c
