"""The scheduler: goroutines on greenlets, one decision per scheduling point, a virtual clock.

One ``Runtime`` executes one run. The scenario's main function is goroutine 1. Goroutines
switch to each other directly (one greenlet switch per context switch); the root greenlet
only sees goroutine exits, failures and the end of the run.

At every scheduling point with more than one option the strategy is asked which goroutine
runs next, or whether the earliest pending timer fires now (a "slow goroutine"; this is how
timing enters). When nothing is runnable the clock jumps to the earliest timer. Decisions
are recorded as plain ints so that any run, whatever its strategy, can be replayed exactly:
``gid`` (>= 1) to run a goroutine, ``0`` to fire the earliest timer, ``-(i+1)`` for an index
choice (select case, map iteration start).
"""

from __future__ import annotations

import bisect
import heapq
import sys
from typing import Any, Callable

from greenlet import GreenletExit, greenlet

from . import failures as F
from .trace import Trace

RUNNABLE, BLOCKED, DONE = "runnable", "blocked", "done"
TIMER = 0

_rt: "Runtime | None" = None


def current_runtime() -> "Runtime":
    """The runtime of the run in progress. Raises RuntimeError outside ``gosim.run``."""
    if _rt is None:
        raise RuntimeError("gosim: no run in progress (call this from code started by gosim.run)")
    return _rt


class _Stuck:
    """Message to the root greenlet: nothing can run and no timer may fire."""


_STUCK = _Stuck()


def _gid(g: "Goroutine") -> int:
    return g.gid


class Goroutine:
    """A simulated goroutine. ``value`` carries what a waker hands to a parked goroutine."""

    __slots__ = ("gid", "name", "glet", "state", "wait", "created_by", "value")

    def __init__(self, gid: int, name: str, created_by: str | None):
        self.gid = gid
        self.name = name
        self.created_by = created_by
        self.state = RUNNABLE
        self.wait: str | None = None
        self.value: Any = None
        self.glet: greenlet | None = None

    def __repr__(self) -> str:
        return f"<goroutine {self.gid} {self.name} {self.state}>"


class _TimerEntry:
    """A pending timer on the virtual clock. ``fire`` runs in scheduler context: it must not block."""

    __slots__ = ("when", "seq", "fire", "label")

    def __init__(self, when: float, seq: int, fire: Callable[[], None], label: str):
        self.when = when
        self.seq = seq
        self.fire = fire
        self.label = label

    def __lt__(self, other: "_TimerEntry") -> bool:
        return (self.when, self.seq) < (other.when, other.seq)


class Runtime:
    """State of one run. Create through :func:`fuzzfarm.gosim.run`, not directly.

    Args:
        strategy: where decisions come from (see ``fuzzfarm.strategies``).
        max_steps: scheduling points allowed before ``StepLimitExceeded``.
        check_leaks: report goroutines still alive after main returned (Go's goleak).
        leak_grace: virtual seconds after main's return during which timers may still fire
            to let goroutines finish before the leak check.
        trace: record events for rendering (slower; decisions are always recorded).
    """

    def __init__(self, strategy, *, max_steps: int = 20_000, check_leaks: bool = True,
                 leak_grace: float = 60.0, trace: bool = False):
        self.strategy = strategy
        self.max_steps = max_steps
        self.check_leaks = check_leaks
        self.leak_grace = leak_grace
        self.now = 0.0
        self.steps = 0
        self.preemptions = 0
        self.switches = 0
        self.decisions: list[int] = []
        self.goroutines: list[Goroutine] = []
        self.runnable: list[Goroutine] = []
        self.timers: list[_TimerEntry] = []
        self.cur: Goroutine | None = None
        self.root: greenlet | None = None
        self.failure: F.GoFailure | None = None
        self.main_done = False
        self.grace_deadline = float("inf")
        self.dead = False
        self._seq = 0
        self._objects = 0
        self.trace: Trace | None = Trace() if trace else None

    # ------------------------------------------------------------------ ids
    def new_object_id(self) -> int:
        """A per-run serial for labelling primitives deterministically (never ``id()``)."""
        self._objects += 1
        return self._objects

    # ------------------------------------------------------------------ goroutines
    def spawn(self, fn: Callable, args: tuple, name: str | None = None, depth: int = 2) -> Goroutine:
        """Create a goroutine running ``fn(*args)``; it is runnable and the caller keeps going
        unless the schedule switches at the scheduling point that ``go`` is."""
        created_by = None
        if self.goroutines:
            f = sys._getframe(depth)
            code = f.f_code
            created_by = f"{getattr(code, 'co_qualname', code.co_name).replace('<locals>.', '')} ({code.co_filename.rsplit('/', 1)[-1]}:{f.f_lineno})"
        g = Goroutine(len(self.goroutines) + 1, name or getattr(fn, "__qualname__", "fn").replace("<locals>.", ""), created_by)
        g.glet = greenlet(lambda: self._body(g, fn, args), self.root)
        self.goroutines.append(g)
        self.runnable.append(g)  # highest gid: the list stays sorted
        if self.trace is not None and self.cur is not None:
            self.trace.event(self, "go", f"G{g.gid} {g.name}")
        return g

    def _body(self, g: Goroutine, fn: Callable, args: tuple):
        try:
            fn(*args)
        except GreenletExit:
            raise
        except BaseException as exc:  # a Go panic: every exception ends the run
            return ("panic", g, exc)
        return ("exit", g)

    def ready(self, g: Goroutine, value: Any = None) -> None:
        """Make a parked goroutine runnable, handing it ``value``."""
        if g.state is BLOCKED:
            g.state = RUNNABLE
            g.wait = None
            g.value = value
            bisect.insort(self.runnable, g, key=_gid)
            if self.trace is not None:
                self.trace.event(self, "wake", f"G{g.gid}")

    # ------------------------------------------------------------------ scheduling points
    def sched(self, ev: str | None = None, obj: Any = None) -> None:
        """A scheduling point in the running goroutine, which stays runnable."""
        if self.dead or self.failure is not None:
            raise GreenletExit()
        self.steps += 1
        if self.steps > self.max_steps:
            self.fail(F.StepLimitExceeded(f"more than {self.max_steps} scheduling steps (livelock or unfair spin loop?)"))
        if self.trace is not None and ev is not None:
            self.trace.event(self, ev, obj)
        if len(self.runnable) == 1 and not self._timer_available():
            return
        cur = self.cur
        nxt = self._decide(cur)
        if nxt is not cur:
            self.preemptions += 1
            if self.trace is not None:
                self.trace.mark_preemption(self, cur, nxt)
            self._switch(nxt)

    def park(self, wait: str, obj: Any = None) -> Any:
        """Block the running goroutine until someone calls :meth:`ready` on it.

        Returns the value handed over by the waker. ``wait`` says where it waits (for dumps).
        """
        if self.dead or self.failure is not None:
            raise GreenletExit()
        g = self.cur
        self.steps += 1
        if self.steps > self.max_steps:
            self.fail(F.StepLimitExceeded(f"more than {self.max_steps} scheduling steps (livelock or unfair spin loop?)"))
        g.state = BLOCKED
        g.wait = wait
        self.runnable.remove(g)
        if self.trace is not None:
            self.trace.event(self, "block", wait if obj is None else f"{wait} {obj}")
        nxt = self._pick_after_block()
        if nxt is None:
            self.root.switch(_STUCK)
            raise GreenletExit()  # only reached if the root resumes us during teardown
        if nxt is not g:
            self._switch(nxt)
        if self.dead or self.failure is not None:
            raise GreenletExit()
        value, g.value = g.value, None
        return value

    def choose_index(self, n: int, what: str) -> int:
        """A data decision in [0, n) (select case, map iteration start). No switch."""
        if n <= 1:
            return 0
        i = self.strategy.pick_index(n, what)
        self.decisions.append(-(i + 1))
        if self.trace is not None:
            self.trace.event(self, "choose", f"{what} {i}/{n}")
        return i

    def _timer_available(self) -> bool:
        return bool(self.timers) and (not self.main_done or self.timers[0].when <= self.grace_deadline)

    def _decide(self, cur: Goroutine | None) -> Goroutine:
        runnable = self.runnable
        while True:
            timer = self._timer_available()
            i = self.strategy.pick(runnable, cur, timer)
            if i < len(runnable):
                g = runnable[i]
                self.decisions.append(g.gid)
                return g
            self.decisions.append(TIMER)
            self._fire_next_timer()
            if len(runnable) == 1 and not self._timer_available():
                return runnable[0]

    def _pick_after_block(self) -> Goroutine | None:
        while not self.runnable:
            if not self._timer_available():
                return None
            self._fire_next_timer()
        if len(self.runnable) == 1 and not self._timer_available():
            return self.runnable[0]
        return self._decide(None)

    def _switch(self, nxt: Goroutine) -> None:
        self.switches += 1
        self.cur = nxt
        nxt.glet.switch()

    # ------------------------------------------------------------------ virtual clock
    def add_timer(self, delay: float, fire: Callable[[], None], label: str) -> _TimerEntry:
        """Arm ``fire`` at now + ``delay`` virtual seconds (negative delays count as 0)."""
        self._seq += 1
        t = _TimerEntry(self.now + max(0.0, delay), self._seq, fire, label)
        heapq.heappush(self.timers, t)
        return t

    def cancel_timer(self, t: _TimerEntry) -> bool:
        """Remove a pending timer; False if it already fired or was cancelled."""
        try:
            self.timers.remove(t)
        except ValueError:
            return False
        heapq.heapify(self.timers)
        return True

    def _fire_next_timer(self) -> None:
        t = heapq.heappop(self.timers)
        if t.when > self.now:
            self.now = t.when
        self.steps += 1
        if self.trace is not None:
            self.trace.event(self, "timer", t.label)
        t.fire()

    # ------------------------------------------------------------------ failures
    def fail(self, failure: F.GoFailure, gid: int | None = None, frames=None):
        """Record ``failure`` with a full dump and raise it in the running goroutine."""
        self._stamp(failure, self.cur if gid is None else self.goroutines[gid - 1],
                    frames if frames is not None else F.frames_from_frame(sys._getframe(1)))
        raise failure

    def _stamp(self, failure: F.GoFailure, g: Goroutine | None, frames=None) -> None:
        # Once the run is over, teardown unwinds parked goroutines through their finally
        # blocks (e.g. a deferred unlock of a mutex a cond-wait had released); whatever they
        # trip over then is an artefact of the teardown, not a program failure.
        if self.failure is not None or self.dead:
            return
        if frames is None:
            frames = F.frames_from_frame(g.glet.gr_frame if g is not None and g.glet is not None else None)
        failure.decision = len(self.decisions)
        failure.step = self.steps
        failure.now = self.now
        dumps = []
        if g is not None:
            failure.goroutine = g.gid
            failure.goroutine_name = g.name
            dumps.append(F.GoroutineDump(g.gid, g.name, "running" if g.state is RUNNABLE else g.state,
                                         g.wait, g.created_by, list(frames)))
        for other in self.goroutines:
            if other is g or other.state is DONE:
                continue
            frame = other.glet.gr_frame if other.glet is not None else None
            dumps.append(F.GoroutineDump(other.gid, other.name, other.state, other.wait,
                                         other.created_by, F.frames_from_frame(frame)))
        failure.dumps = dumps
        self.failure = failure
        if self.trace is not None:
            self.trace.event(self, "failure", failure.kind, gid=failure.goroutine)

    # ------------------------------------------------------------------ the run
    def execute(self, main: Callable, args: tuple) -> None:
        """Run ``main(*args)`` as goroutine 1 until it and everything it left behind is done,
        or a failure happens (then ``self.failure`` is set)."""
        global _rt
        if _rt is not None:
            raise RuntimeError("gosim: runs do not nest")
        _rt = self
        self.root = greenlet.getcurrent()
        self.strategy.begin(self)
        try:
            self.cur = self.spawn(main, args, name="main")
            nxt: Goroutine | None = self.cur
            while nxt is not None:
                self.cur = nxt
                msg = nxt.glet.switch()
                if self.failure is not None:
                    break
                if msg is _STUCK:
                    if self.main_done:
                        break
                    main = self.goroutines[0]
                    self._stamp(F.Deadlock("all goroutines are asleep - deadlock!"),
                                main if main.state is not DONE else self._first_alive())
                    break
                status, g = msg[0], msg[1]
                if status == "panic":
                    exc = msg[2]
                    if isinstance(exc, F.GoFailure) and self.failure is None:
                        self._stamp(exc, g, F.frames_from_traceback(exc.__traceback__))
                    elif self.failure is None:
                        self._stamp(F.GoroutinePanic(f"{type(exc).__name__}: {exc}", cause=exc), g,
                                    F.frames_from_traceback(exc.__traceback__))
                    break
                g.state = DONE
                self.runnable.remove(g)
                if g.gid == 1:
                    self.main_done = True
                    if not self.check_leaks:
                        break
                    self.grace_deadline = self.now + self.leak_grace
                nxt = self._pick_after_block()
            if self.failure is None and self.check_leaks:
                leaked = [g for g in self.goroutines if g.state is not DONE]
                if leaked:
                    names = ", ".join(f"G{g.gid} {g.name} ({g.wait or g.state})" for g in leaked)
                    self._stamp(F.GoroutineLeak(f"{len(leaked)} goroutine(s) still alive after main returned: {names}"),
                                leaked[0])
        finally:
            self._teardown()
            _rt = None

    def _first_alive(self) -> Goroutine | None:
        return next((g for g in self.goroutines if g.state is not DONE), None)

    def _teardown(self) -> None:
        # Go kills every goroutine when the process exits; running their finally blocks
        # here, with every runtime operation refusing, keeps later runs clean.
        self.dead = True
        for g in self.goroutines:
            glet = g.glet
            if glet is not None and glet and not glet.dead:
                try:
                    glet.throw(GreenletExit)
                except GreenletExit:
                    pass
            g.glet = None
