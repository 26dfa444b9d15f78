"""The virtual clock: ``now``, ``sleep``, ``after``, timers and tickers (Go's ``time``).

Virtual seconds are floats starting at 0. Time moves only inside the scheduler: when nothing
is runnable it jumps to the earliest timer, and a decision may fire a timer before runnable
goroutines have run (see ``Runtime._decide``). Timer deliveries never block: like Go, a
timer or ticker channel has capacity 1 and a tick that finds it full is dropped.
"""

from __future__ import annotations

from typing import Callable

from .chan import Chan
from .runtime import current_runtime


def now() -> float:
    """Virtual seconds since the run started. Go: ``time.Now()``."""
    return current_runtime().now


def since(t: float) -> float:
    """Virtual seconds elapsed since ``t``. Go: ``time.Since``."""
    return current_runtime().now - t


def sleep(d: float) -> None:
    """Block the calling goroutine for ``d`` virtual seconds. Go: ``time.Sleep``."""
    rt = current_runtime()
    if d <= 0:
        rt.sched("sleep", "0s")
        return
    g = rt.cur
    rt.add_timer(d, lambda: rt.ready(g), f"sleep G{g.gid} {d:g}s")
    rt.park("sleep", f"{d:g}s")


class Timer:
    """``time.NewTimer``: channel ``c`` receives the virtual time once, after ``d`` seconds.

    With ``func`` set (``time.AfterFunc``) no channel is used: ``func`` runs in a new goroutine.
    """

    __slots__ = ("rt", "c", "func", "entry", "label")

    def __init__(self, d: float, func: Callable[[], None] | None = None, name: str | None = None):
        self.rt = current_runtime()
        self.label = name or f"timer#{self.rt.new_object_id()}"
        self.func = func
        self.c = None if func is not None else Chan(1, name=f"{self.label}.C")
        self.entry = None
        self._arm(d)

    def _fire(self) -> None:
        self.entry = None
        if self.func is not None:
            self.rt.spawn(self.func, (), name=f"{self.label} func", depth=1)
        else:
            self.c.try_send_from_timer(self.rt.now)

    def _arm(self, d: float) -> None:
        self.entry = self.rt.add_timer(d, self._fire, self.label)

    def stop(self) -> bool:
        """Prevent the timer from firing; True if it was still pending."""
        self.rt.sched("timer.stop", self.label)
        if self.entry is None:
            return False
        ok = self.rt.cancel_timer(self.entry)
        self.entry = None
        return ok

    def reset(self, d: float) -> bool:
        """Re-arm for ``d`` seconds from now; True if it was still pending."""
        was = self.stop()
        self._arm(d)
        return was


class Ticker:
    """``time.NewTicker``: channel ``c`` receives the virtual time every ``d`` seconds (drops when full)."""

    __slots__ = ("rt", "c", "d", "entry", "label")

    def __init__(self, d: float, name: str | None = None):
        if d <= 0:
            raise ValueError("non-positive interval for NewTicker")
        self.rt = current_runtime()
        self.label = name or f"ticker#{self.rt.new_object_id()}"
        self.c = Chan(1, name=f"{self.label}.C")
        self.d = d
        self.entry = self.rt.add_timer(d, self._fire, self.label)

    def _fire(self) -> None:
        self.c.try_send_from_timer(self.rt.now)
        self.entry = self.rt.add_timer(self.d, self._fire, self.label)

    def stop(self) -> None:
        self.rt.sched("ticker.stop", self.label)
        if self.entry is not None:
            self.rt.cancel_timer(self.entry)
            self.entry = None

    def reset(self, d: float) -> None:
        self.stop()
        self.d = d
        self.entry = self.rt.add_timer(d, self._fire, self.label)


def new_timer(d: float, name: str | None = None) -> Timer:
    return Timer(d, name=name)


def after_func(d: float, f: Callable[[], None], name: str | None = None) -> Timer:
    """Run ``f`` in its own goroutine after ``d`` virtual seconds. Go: ``time.AfterFunc``."""
    return Timer(d, func=f, name=name)


def new_ticker(d: float, name: str | None = None) -> Ticker:
    return Ticker(d, name=name)


def after(d: float) -> Chan:
    """A channel that receives the virtual time after ``d`` seconds. Go: ``time.After``."""
    return Timer(d, name=f"after({d:g}s)").c
