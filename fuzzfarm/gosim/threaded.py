"""The stress-test baseline: the same ported code on real OS threads, no controlled scheduler.

This is what users do today to hunt races: run the code many times on real threads and hope.
It exists for benchmarks (fuzzfarm ÷ stress time-to-bug), never for finding or replaying bugs.

Every goroutine is a ``threading.Thread``. One big lock keeps the runtime's primitives
consistent (as the GIL keeps a dict consistent); it is released at every scheduling point,
where a real Go race has its window, optionally with a random sleep of up to ``jitter_s``
seconds, and the OS picks which thread takes it next. Timers are real ``threading.Timer``s,
virtual seconds scaled by ``time_scale``. Nothing here is deterministic, by design.
"""

from __future__ import annotations

import random
import sys
import threading
import time
from typing import Any, Callable

from greenlet import GreenletExit

from . import failures as F
from . import goversion
from . import runtime as _runtime
from .api import RunReport
from .runtime import BLOCKED, DONE, RUNNABLE


class _Abort(GreenletExit):
    """Unwinds a thread after the run has ended (a failure elsewhere, or teardown)."""


class _TGoroutine:
    __slots__ = ("gid", "name", "state", "wait", "created_by", "value", "event", "thread", "glet", "blocked_on")

    def __init__(self, gid: int, name: str):
        self.gid, self.name = gid, name
        self.state = RUNNABLE
        self.wait = None
        self.created_by = None
        self.value = None
        self.event = threading.Event()
        self.thread: threading.Thread | None = None
        self.glet = None
        self.blocked_on = None  # set by sync primitives before they park (the deterministic runtime's wait-for graph)


class ThreadedRuntime:
    """Drop-in for ``Runtime`` as seen by the primitives (sched/park/ready/spawn/timers/fail)."""

    def __init__(self, *, seed: int | None = None, time_scale: float = 1e-3, jitter_s: float = 0.0,
                 yield_p: float = 0.0, wall_timeout_s: float = 2.0):
        self.big = threading.Lock()
        self.local = threading.local()
        self.rng = random.Random(seed)
        self.time_scale = time_scale
        self.jitter_s = jitter_s
        self.yield_p = yield_p
        self.wall_timeout_s = wall_timeout_s
        self.t0 = time.monotonic()
        self.failure: F.GoFailure | None = None
        self.dead = False
        self.trace = None
        self.race = None  # no race detector on real threads (race.py needs the scheduler's clocks)
        self.race_mode = False
        self.go_version = goversion.DEFAULT  # the default Go's timers (gosim.run's go_version)
        self.sync_timers = goversion.sync_timers(self.go_version)
        self.old_timers_effect: str | None = None
        self.decisions: list[int] = []
        self.steps = 0
        self.preemptions = 0
        self.switches = 0
        self.goroutines: list[_TGoroutine] = []
        self.timers: list[threading.Timer] = []
        self.main_done = threading.Event()
        self._objects = 0

    # -- what primitives use
    @property
    def cur(self) -> _TGoroutine:
        """The goroutine of the calling thread."""
        return self.local.g

    @property
    def now(self) -> float:
        """Virtual seconds: wall seconds since the start divided by ``time_scale``."""
        return (time.monotonic() - self.t0) / self.time_scale

    def new_object_id(self) -> int:
        """A per-run serial for labels (as ``Runtime.new_object_id``)."""
        self._objects += 1
        return self._objects

    def _check(self) -> None:
        if self.dead or self.failure is not None:
            raise _Abort()

    def sched(self, ev: str | None = None, obj: Any = None, yielding: bool = False) -> None:
        """A scheduling point: release the big lock (maybe sleep), take it back."""
        self._check()
        self.steps += 1
        self.big.release()
        try:
            if self.jitter_s and self.rng.random() < self.yield_p:
                time.sleep(self.rng.random() * self.jitter_s)
        finally:
            self.big.acquire()
        self._check()

    def gosched(self) -> None:
        """``runtime.Gosched()``: ``sched``."""
        self.sched("gosched", None, True)

    def park(self, wait: str, obj: Any = None) -> Any:
        """Block the calling thread until ``ready``; returns the handed-over value."""
        self._check()
        g = self.cur
        g.state, g.wait = BLOCKED, wait
        g.event.clear()
        self.big.release()
        try:
            g.event.wait()
        finally:
            self.big.acquire()
        self._check()
        value, g.value = g.value, None
        return value

    def ready(self, g: _TGoroutine, value: Any = None) -> None:
        """Wake a parked goroutine, handing it ``value``."""
        if g.state is BLOCKED:
            g.state, g.wait, g.value = RUNNABLE, None, value
            g.event.set()

    def choose_index(self, n: int, what: str) -> int:
        """A data choice in [0, n) from the seeded (not input-driven) random source."""
        return self.rng.randrange(n) if n > 1 else 0

    def spawn(self, fn: Callable, args: tuple, name: str | None = None, depth: int = 2) -> _TGoroutine:
        """Start ``fn(*args)`` on a new daemon thread."""
        g = _TGoroutine(len(self.goroutines) + 1, name or getattr(fn, "__qualname__", "fn"))
        self.goroutines.append(g)

        def body() -> None:
            self.local.g = g
            with self.big:
                try:
                    fn(*args)
                except _Abort:
                    pass
                except BaseException as exc:  # a Go panic
                    self._record(exc, g)
                finally:
                    g.state = DONE
                    if g.gid == 1:
                        self.main_done.set()

        g.thread = threading.Thread(target=body, daemon=True, name=f"goroutine-{g.gid}")
        g.thread.start()
        return g

    def add_timer(self, delay: float, fire: Callable[[], None], label: str, idle=None):
        """A ``threading.Timer`` firing ``fire`` (under the big lock) after ``delay`` virtual seconds."""
        def locked_fire() -> None:
            with self.big:
                if not self.dead and self.failure is None:
                    fire()

        t = threading.Timer(max(0.0, delay) * self.time_scale, locked_fire)
        t.daemon = True
        self.timers.append(t)
        t.start()
        return t

    def add_timer_at(self, when: float, fire: Callable[[], None], label: str, idle=None):
        """``add_timer`` at virtual time ``when``."""
        return self.add_timer(when - self.now, fire, label)

    def cancel_timer(self, t) -> bool:
        """Cancel a timer; True if it had not fired yet."""
        alive = t.is_alive()
        t.cancel()
        return alive

    def fail(self, failure: F.GoFailure, gid: int | None = None, frames=None):
        """Record ``failure`` (the first one wins) and raise it in the calling thread."""
        self._record(failure, self.cur, F.frames_from_frame(sys._getframe(1)))
        raise failure

    def _record(self, exc: BaseException, g: _TGoroutine, frames=None) -> None:
        # after the run ended (a hang's teardown), threads unwind through their defers: a
        # deferred Unlock after an aborted Cond.Wait is teardown, not a failure of the run
        if self.failure is not None or self.dead:
            return
        if not isinstance(exc, F.GoFailure):
            exc = F.GoroutinePanic(f"{type(exc).__name__}: {exc}", cause=exc)
            frames = F.frames_from_traceback(exc.cause.__traceback__)
        elif frames is None:
            frames = F.frames_from_traceback(exc.__traceback__)
        exc.goroutine, exc.goroutine_name = g.gid, g.name
        exc.dumps = [F.GoroutineDump(g.gid, g.name, "running", None, None, list(frames))]
        self.failure = exc
        self.main_done.set()

    # -- the run
    def execute(self, main: Callable, args: tuple) -> bool:
        """Run ``main`` on threads until it returns, fails, or ``wall_timeout_s`` passes.
        Returns False on a wall-clock timeout (a hang: deadlock or livelock)."""
        if _runtime._rt is not None:
            raise RuntimeError("gosim: runs do not nest")
        _runtime._rt = self
        _runtime.CURRENT.gosched = self.gosched
        try:
            self.spawn(main, args, name="main")
            finished = self.main_done.wait(self.wall_timeout_s)
        finally:
            with self.big:
                self.dead = True
                for g in self.goroutines:
                    g.event.set()
                for t in self.timers:
                    t.cancel()
            _runtime._rt = None
            _runtime.CURRENT.gosched = _runtime._no_run
        for g in self.goroutines:
            if g.thread is not None:
                g.thread.join(0.5)
        return finished


def run_threaded(main: Callable, *args: Any, seed: int | None = None, time_scale: float = 1e-3,
                 jitter_s: float = 0.0, yield_p: float = 0.0, wall_timeout_s: float = 2.0) -> RunReport:
    """Run ``main(*args)`` on real threads (the stress baseline). ``RunReport.failure`` is the
    failure seen, if any; a hang past ``wall_timeout_s`` wall seconds is reported as a
    ``Deadlock`` failure. ``time_scale``: wall seconds per virtual second; at each scheduling
    point the big lock is released (the OS may switch threads there) and, with probability
    ``yield_p``, the thread sleeps up to ``jitter_s`` seconds (the "random sleeps" of stress tests)."""
    rt = ThreadedRuntime(seed=seed, time_scale=time_scale, jitter_s=jitter_s, yield_p=yield_p,
                         wall_timeout_s=wall_timeout_s)
    finished = rt.execute(main, args)
    failure = rt.failure
    if failure is None and not finished:
        failure = F.Deadlock(f"no progress within {wall_timeout_s:g} s of wall time (hang)")
    return RunReport(failure=failure, decisions=[], steps=rt.steps, preemptions=0, switches=0,
                     now=rt.now, goroutines=len(rt.goroutines), trace=None, legend=[])
