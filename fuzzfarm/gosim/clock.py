"""The virtual clock: ``now``, ``sleep``, ``after``, timers and tickers (Go's ``time``).

Virtual seconds are floats starting at 0. Time moves only inside the scheduler: when nothing
is runnable it jumps to the earliest timer, and a decision may fire a timer before runnable
goroutines have run (see ``Runtime._decide``). Timer deliveries never block: like Go (before
1.23), a timer or ticker channel has capacity 1 and a tick that finds it full is dropped.
A timer fires at exactly the virtual time it was armed for (``now() + d``), never rounded.
"""

from __future__ import annotations

import sys
from typing import Callable

from . import race as _race
from .chan import Chan
from .failures import first_project_frame_of
from .gopanic import go_panic
from .runtime import current_runtime


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
        self.c = None if func is not None else Chan(1, name=f"{self.label}.C")
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
        """Prevent the timer from firing; True if it was still pending. A value already in
        ``c`` stays there (Go before 1.23). Go: ``(*Timer).Stop``."""
        self.rt.sched("timer.stop", self.label)
        if self.entry is None:
            return False
        ok = self.rt.cancel_timer(self.entry)
        self.entry = None
        return ok

    def reset(self, d: float) -> bool:
        """Re-arm for ``d`` seconds from now; True if it was still pending. Go: ``(*Timer).Reset``."""
        was = self.stop()
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
        self.c = Chan(1, name=f"{self.label}.C")
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
        """Stop ticking (no value is sent afterwards). Go: ``(*Ticker).Stop``."""
        self.rt.sched("ticker.stop", self.label)
        if self.entry is not None:
            self.rt.cancel_timer(self.entry)
            self.entry = None

    def reset(self, d: float) -> None:
        """Tick every ``d`` seconds from now on. Go: ``(*Ticker).Reset``; ValueError for d <= 0."""
        if d <= 0:
            raise go_panic(ValueError, "non-positive interval for Ticker.Reset")
        self.stop()
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
