"""The scheduler: goroutines on greenlets, one decision per scheduling point, a virtual clock.

One ``Runtime`` executes one run. The scenario's main function is goroutine 1. Goroutines
switch to each other directly (one greenlet switch per context switch); the root greenlet
only sees goroutine exits, failures and the end of the run. A goroutine's greenlet is reused
by later goroutines once its body ended (``_worker``): starting greenlets was a large share of
a small run's cost.

At every scheduling point with more than one option the strategy is asked which goroutine
runs next, or whether the earliest pending timer fires now (a "slow goroutine"; this is how
timing enters). When nothing is runnable the clock jumps to the earliest timer. Decisions
are recorded as plain ints so that any run, whatever its strategy, can be replayed exactly:
``gid`` (>= 1) to run a goroutine, ``0`` to fire the earliest timer, ``-(i+1)`` for an index
choice (select case, map iteration start).

Invariants (checked by the tests in ``tests/gosim``):

* ``runnable`` holds exactly the goroutines in state RUNNABLE, sorted by gid; the running
  goroutine is in it. A BLOCKED goroutine is in no run queue and is woken only by ``ready``.
* ``over`` is True once the run has a failure, an internal error, or is being torn down;
  from then on every runtime operation raises ``GreenletExit`` in the calling goroutine.
* Nothing here reads the wall clock, ``random``, ``id()`` or ``hash()``.

Go counterparts: ``runtime.schedule``/``gopark``/``goready`` (here ``sched``/``park``/``ready``),
``checkdead`` (the deadlock report), and the timer heap of ``runtime/time.go``.
"""

from __future__ import annotations

import bisect
import functools
import heapq
import itertools
import sys
from typing import Any, Callable

from greenlet import GreenletExit, greenlet

from . import failures as F
from . import goversion as _goversion
from . import race as _race
from .trace import Trace

RUNNABLE, BLOCKED, DONE = "runnable", "blocked", "done"
# Default count bound on early timer firings one runnable goroutine may wait through.
EARLY_CAP = 4
TIMER = 0
_INF = float("inf")

_rt: "Runtime | None" = None


def current_runtime() -> "Runtime":
    """The runtime of the run in progress. Raises RuntimeError outside ``gosim.run``."""
    if _rt is None:
        raise RuntimeError("gosim: no run in progress (call this from code started by gosim.run)")
    return _rt


class _Current:
    """The current run's bound ``gosched`` (``_no_run`` outside runs), so that
    ``gosim.gosched`` is one attribute lookup and a call, with no check of its own."""

    __slots__ = ("gosched",)


def _no_run() -> None:
    current_runtime()  # raises the RuntimeError


CURRENT = _Current()
CURRENT.gosched = _no_run

# The current run while its gosched is the byte-stream fast path (else None): ``gosched``
# below then runs that path inline, saving a Python frame per call.
_FAST: "Runtime | None" = None


def gosched() -> None:
    """Go's ``runtime.Gosched()``: a scheduling point that yields. Strategies may keep the
    caller running; the bytes strategy's default (input exhausted) hands over to the next
    goroutine in id order after a few yields in a row, so spin loops on ``gosched`` make
    progress as in Go. Raises RuntimeError outside a run, StepLimitExceeded past the step
    limit. (Exported as ``gosim.gosched``.)

    The body is ``Runtime._gosched_bytes`` inlined for the common fuzzing case (bytes
    strategy, no timer pending, no trace); any other state goes through the run's bound
    ``gosched``. The equivalence is tested (``tests/gosim/test_determinism.py``)."""
    rt = _FAST
    if rt is None:
        return CURRENT.gosched()
    stage = 0
    try:
        next(rt._ticks)
        stage = 1
        runnable = rt.runnable
        n = len(runnable)
        if n - 1:
            nxt = runnable[rt._bnext() % n]
            rt._record(nxt.gid)
            cur = rt.cur
            if nxt is cur:
                return
            rt.preemptions += 1
            cur.ran_at = rt.now
            cur.early_mark = rt.early_fires
            rt.cur = nxt
            nxt.switch()
        return
    except StopIteration:
        if not stage:
            rt._limit_or_over()
            return CURRENT.gosched()  # the step budget was extended (see _limit_or_over)
        rt._bytes_exhausted(rt._ystrat.pick_yield)


class _Stuck:
    """Message to the root greenlet: nothing can run and no timer may fire."""


_STUCK = _Stuck()


@functools.lru_cache(maxsize=1024)
def _qualname(q: str) -> str:
    return q.replace("<locals>.", "")


def _name_of(fn: Callable) -> str:
    return _qualname(getattr(fn, "__qualname__", "fn"))


def _gid(g: "Goroutine") -> int:
    return g.gid


# Idle goroutine greenlets, with their job boxes. Starting a greenlet costs about as much as a
# whole small run's scheduling (its first switch builds the frame and the stack slice; its end
# frees them): a walk runs thousands of runs of a few goroutines each, so a goroutine whose body
# ended keeps its greenlet here for the next ``go``. A greenlet of another thread (its parent
# cannot be set: ValueError) is dropped, not reused.
_IDLE: list[tuple[greenlet, list]] = []
_POOL_MAX = 64  # idle greenlets kept; past this a finished one ends as before


def _worker(box: list):
    """The body of a goroutine greenlet: run the job in ``box`` (``(runtime, goroutine, fn,
    args)``, left by ``spawn``), hand its end to the run's root as a finishing greenlet would
    (``_body``'s message, or the GreenletExit that stopped it), then wait in the pool for the
    next job. A goroutine is only ever resumed by the run's switches, never with a value, so
    the switch that resumes an idle worker is the next job's start. The goroutine lets go of
    the greenlet first (``glet`` None): nothing may throw into a pooled worker."""
    while True:
        rt, g, fn, args = box[0]
        box[0] = None
        try:
            msg = rt._body(g, fn, args)
        except GreenletExit as exc:
            msg = exc
        g.glet = None
        g.switch = None
        g.box = None
        root = rt.root
        rt = g = fn = args = None
        if len(_IDLE) >= _POOL_MAX:
            return msg
        _IDLE.append((greenlet.getcurrent(), box))
        root.switch(msg)


class Goroutine:
    """A simulated goroutine. ``value`` carries what a waker hands to a parked goroutine.

    ``state`` is RUNNABLE, BLOCKED or DONE; ``wait`` says where a BLOCKED goroutine waits
    (Go's wait reason, e.g. ``chan receive``); ``created_by`` is the project frame of its
    ``go`` statement (None for main).
    """

    __slots__ = ("gid", "name", "glet", "switch", "box", "state", "wait", "created_by", "value",
                 "ran_at", "early_mark", "blocked_on")

    def __init__(self, gid: int, name: str, created_by: str | None):
        self.gid = gid
        self.name = name
        self.created_by = created_by
        self.state = RUNNABLE
        self.wait: str | None = None
        self.value: Any = None
        self.glet: greenlet | None = None
        self.switch: Callable | None = None  # glet.switch, bound once
        self.box: list | None = None  # the greenlet's job box (``_worker``) while it holds one
        # When it last stopped running or became runnable: virtual time and the run's count of
        # early timer firings then (its starvation is measured from these; see docs/timing.md).
        self.ran_at = 0.0
        self.early_mark = 0
        self.blocked_on: Any = None  # the primitive it is parked on, for the deadlock's wait-for graph

    def __repr__(self) -> str:
        return f"<goroutine {self.gid} {self.name} {self.state}>"


class _TimerEntry:
    """A pending timer on the virtual clock. ``fire`` runs in scheduler context: it must not
    block. ``idle`` (optional) tells whether firing now would change nothing (a ticker whose
    channel is full and has no receiver): used to tell a hang from progress."""

    __slots__ = ("when", "seq", "fire", "label", "idle")

    def __init__(self, when: float, seq: int, fire: Callable[[], None], label: str,
                 idle: Callable[[], bool] | None = None):
        self.when = when
        self.seq = seq
        self.fire = fire
        self.label = label
        self.idle = idle

    def __lt__(self, other: "_TimerEntry") -> bool:
        return (self.when, self.seq) < (other.when, other.seq)


class _YieldAdapter:
    """``pick_yield`` for a strategy that has only ``pick``."""

    __slots__ = ("s",)

    def __init__(self, strategy):
        self.s = strategy

    @property
    def pick_yield(self):
        return self.s.pick


class Runtime:
    """State of one run. Create through :func:`fuzzfarm.gosim.run`, not directly.

    Args:
        strategy: where decisions come from (see ``fuzzfarm.strategies``).
        max_steps: scheduling steps allowed before ``StepLimitExceeded``; timer firings count.
        check_leaks: report goroutines still alive after main returned (Go's goleak).
        leak_grace: virtual seconds after main's return during which timers may still fire
            to let goroutines finish before the leak check.
        trace: record events for rendering (slower; decisions are always recorded).
        max_starvation_s: the earliest timer may fire early (before runnable goroutines ran)
            only while no runnable goroutine would then have waited longer than this many
            virtual seconds; None: no bound in time (the count bound ``early_cap`` still holds).
        early_cap: at most this many early firings while one goroutine stays runnable and
            unscheduled (so timing inputs can never starve a runnable goroutine indefinitely).
        lift_one_in: 0: ``max_starvation_s`` is a filter. N >= 2: it is a realism bound the
            schedule may leave: at the first early firing the bound would refuse, one data
            decision over N options (``"starvation bound"``) says whether this run goes on
            with no bound in time (the last option) or keeps it (every other option; the
            bytes strategy's exhausted default 0 keeps it). Asked at most once per run, and
            never in a run no timer could fire past the bound.
        go_version: the Go release whose semantics the run models (``goversion``: "1.22" for
            pre-1.23 timer channels; default ``goversion.DEFAULT``).
    """

    def __init__(self, strategy, *, max_steps: int = 20_000, check_leaks: bool = True,
                 leak_grace: float = 60.0, trace: bool = False, race: bool | None = None,
                 max_starvation_s: float | None = None, early_cap: int = EARLY_CAP, lift_one_in: int = 0,
                 go_version: str = _goversion.DEFAULT):
        self.strategy = strategy
        self.go_version = go_version
        self.sync_timers = _goversion.sync_timers(go_version)  # ValueError for a bad version
        # Under Go <= 1.22 timers: the first thing this run did that Go >= 1.23 would not
        # (a Stop leaving a stale value...); a failure after it says which Go it needs.
        self.old_timers_effect: str | None = None
        # The race detector (race.py): on from the start (True), off (False), or started by
        # the first Shared/Var access (None). ``race`` is None while it is not running.
        self.race_mode = race
        self.race: _race.RaceDetector | None = _race.RaceDetector(self) if race else None
        self.max_steps = max_steps
        self.check_leaks = check_leaks
        self.leak_grace = leak_grace
        self.now = 0.0
        # The step budget: ``next(self._ticks)`` raises StopIteration once it is spent, and
        # at once when the run is over (it is swapped for an empty iterator). ``steps`` derives
        # from what is left, frozen in ``_steps_final`` once the run is over.
        self._ticks = itertools.repeat(None, max_steps)
        self._budget = max_steps  # steps granted so far (max_steps, doubled once by a drain)
        self._beyond = 0  # 1 once a scheduling point went past the limit
        self._steps_final: int | None = None
        self.preemptions = 0
        # Timing inputs (the model: docs/timing.md): early firings made,
        # the longest virtual time a runnable goroutine waited while the clock advanced, and
        # the step at which early firing was switched off to let the program drain (or None).
        self.max_starvation_s = max_starvation_s
        self.early_cap = early_cap
        # the realism bound may be left once (lift_one_in): asked? and left? (docs/timing.md)
        self.lift_one_in = lift_one_in if max_starvation_s is not None and lift_one_in >= 2 else 0
        self.bound_lifted = False
        self.starved_waits: dict[int, float] = {}  # gid -> its longest wait at a clock jump
        self.early_fires = 0
        self.starvation = 0.0
        self.starved: tuple[int, str] | None = None  # (gid, name) of the goroutine that waited longest
        self.drained_at: int | None = None
        self._park_switches = 0  # switches after a block; ``switches`` adds the preemptions
        self.decisions: list[int] = []
        self._record = self.decisions.append
        self.goroutines: list[Goroutine] = []
        self.runnable: list[Goroutine] = []
        self.timers: list[_TimerEntry] = []
        self.cur: Goroutine | None = None
        self.root: greenlet | None = None
        self.failure: F.GoFailure | None = None
        self.internal: BaseException | None = None
        self.main_done = False
        # Timers due after this virtual time never fire (infinite until main returns).
        self.grace_deadline = _INF
        self.dead = False
        self.over = False
        self._firing = False
        self._seq = 0
        self._objects = 0
        # Picks are looked up per decision (BytesStrategy swaps its picks when its bytes run
        # out); a strategy without pick_yield gets pick at yields too.
        self._ystrat = strategy if hasattr(strategy, "pick_yield") else _YieldAdapter(strategy)
        self.trace: Trace | None = Trace() if trace else None
        # Optional observer of what each step touches (exhaustive exploration's reduction,
        # ``fuzzfarm.strategies.dfs.Footprints``): told of every scheduling point, wake-up,
        # spawn, exit, object serial, timer arm/cancel and firing, and (``access``) of reads
        # with no scheduling point (len of a channel or map, Map.snapshot). None costs one test
        # per hook.
        self.observer = getattr(strategy, "observer", None)
        # Optional strategy fast path: ``byte_stream()`` gives the ``__next__`` of the raw
        # decision bytes (BytesStrategy), used as ``byte % options`` while it lasts.
        stream = None if trace else getattr(strategy, "byte_stream", None)
        self._bnext = stream() if stream is not None else None
        self._rebind()

    @property
    def switches(self) -> int:
        """All context switches between goroutines so far (preemptions included)."""
        return self.preemptions + self._park_switches

    @property
    def steps(self) -> int:
        """Scheduling steps so far (scheduling points, parks and timer firings)."""
        if self._steps_final is not None:
            return self._steps_final
        return self._budget - self._ticks.__length_hint__() + self._beyond

    def _steps_left(self) -> int:
        return self._ticks.__length_hint__()

    # ------------------------------------------------------------------ ids
    def new_object_id(self) -> int:
        """A per-run serial (1, 2, ...) for labelling primitives deterministically (never ``id()``)."""
        self._objects += 1
        if self.observer is not None:
            self.observer.touch("alloc")  # the serial is shared state: creation order shows in labels
        return self._objects

    # ------------------------------------------------------------------ goroutines
    def spawn(self, fn: Callable, args: tuple, name: str | None = None, depth: int = 2) -> Goroutine:
        """Create a goroutine running ``fn(*args)`` (Go: ``newproc``); it is runnable and the
        caller keeps going. Not a scheduling point by itself (``go`` adds one). ``depth`` is
        unused (kept for compatibility): the creation site is the innermost project frame."""
        g = Goroutine(len(self.goroutines) + 1,
                      name or _name_of(fn), F.project_site(sys._getframe(1)) if self.goroutines else None)
        g.ran_at = self.now
        g.early_mark = self.early_fires
        glet = None
        while _IDLE:
            glet, box = _IDLE.pop()
            try:
                glet.parent = self.root
                break
            except ValueError:  # another thread's
                glet = None
        if glet is None:
            box = [None]
            glet = greenlet(functools.partial(_worker, box), self.root)
        else:
            glet.gr_context = None  # an empty context, as a new greenlet's
        box[0] = (self, g, fn, args)
        g.glet = glet
        g.box = box
        g.switch = glet.switch
        self.goroutines.append(g)
        self.runnable.append(g)  # highest gid: the list stays sorted
        if self.race is not None:
            self.race.go(self.cur, g)  # the go statement happens before the goroutine starts
        if self.observer is not None:
            self.observer.spawned(g)
        if self.trace is not None and self.cur is not None:
            self.trace.event(self, "go", f"G{g.gid} {g.name}")
        return g

    def _body(self, g: Goroutine, fn: Callable, args: tuple):
        try:
            fn(*args)
        except GreenletExit:
            raise
        except KeyboardInterrupt as exc:  # the user, not the program: stop the run
            self._abort(exc)
            raise GreenletExit()
        except BaseException as exc:  # a Go panic: every exception ends the run
            return ("panic", g, exc)
        return ("exit", g)

    def ready(self, g: Goroutine, value: Any = None) -> None:
        """Make a parked goroutine runnable, handing it ``value`` (Go: ``goready``).
        A goroutine that is not BLOCKED is left alone."""
        if g.state is BLOCKED:
            if self.observer is not None:
                self.observer.readied(g)
            g.state = RUNNABLE
            g.wait = None
            g.value = value
            g.blocked_on = None
            g.ran_at = self.now
            g.early_mark = self.early_fires
            bisect.insort(self.runnable, g, key=_gid)
            if self.trace is not None:
                self.trace.event(self, "wake", f"G{g.gid}")

    # ------------------------------------------------------------------ scheduling points
    # The hot paths are written for atheris, where every comparison and every basic block is
    # a traced call: no comparison operators, one ``if`` per question, early returns instead
    # of join points, at most one try statement. ``sched`` and ``gosched`` below are the
    # general versions; each instance binds the specialised one for its state (see
    # ``_rebind``): traced, timers pending, byte stream, plain strategy. ``next(self._ticks)``
    # is both the step budget and the "is the run over?" check, with no branch: it raises
    # StopIteration (handled by the one try statement) when the budget is spent or the run over.
    def sched(self, ev: str | None = None, obj: Any = None, yielding: bool = False) -> None:
        """A scheduling point in the running goroutine, which stays runnable.

        ``ev``/``obj`` name the operation for the trace; ``yielding`` marks ``Gosched``
        (strategies may treat it as a hint to let another goroutine run). Raises
        StepLimitExceeded past ``max_steps``, GreenletExit once the run is over.
        """
        if self.timers:
            return self._sched_timers(ev, obj, yielding)
        return self._sched_plain(ev, obj, yielding)

    def gosched(self) -> None:
        """``runtime.Gosched()`` in the running goroutine: a scheduling point with the yield
        hint. Raises StepLimitExceeded past ``max_steps``, GreenletExit once the run is over."""
        if self.timers:
            return self._gosched_timers()
        return self._gosched_plain()

    def _rebind(self) -> None:
        """Bind ``sched``/``gosched`` of this instance to the variant for its state; called
        when timers go from none to some and back, and when the byte stream runs out."""
        if self.trace is not None:
            s, g = self._sched_traced, self._gosched_traced
        elif self.timers:
            s, g = self._sched_timers, self._gosched_timers
        elif self._bnext is not None:
            s, g = self._sched_bytes, self._gosched_bytes
        else:
            s, g = self._sched_plain, self._gosched_plain
        if self.observer is not None:
            s, g = self.observer.wrap(s, g)
        self.sched = s
        self.gosched = g
        if _rt is self:
            global _FAST
            CURRENT.gosched = g
            _FAST = self if s == self._sched_bytes else None

    def _sched_plain(self, ev: str | None = None, obj: Any = None, yielding: bool = False) -> None:
        """``sched`` with no timer pending, any strategy."""
        if yielding:
            return self.gosched()
        stage = 0
        try:
            next(self._ticks)
            stage = 1
            runnable = self.runnable
            if len(runnable) - 1:
                cur = self.cur
                nxt = runnable[self.strategy.pick(runnable, cur, False)]
                self._record(nxt.gid)
                if nxt is cur:
                    return
                self.preemptions += 1
                cur.ran_at = self.now
                cur.early_mark = self.early_fires
                self.cur = nxt
                # A goroutine is only ever resumed by a switch while the run goes on: once it
                # is over, teardown resumes parked goroutines with throw(), never switch().
                nxt.switch()
            return
        except StopIteration as exc:
            if not stage:
                self._limit_or_over()
                return self.sched(ev, obj, yielding)  # the step budget was extended (see _limit_or_over)
            self._strategy_error(exc)
        except Exception as exc:  # noqa: BLE001 - the strategy's (e.g. SchedulingError)
            self._strategy_error(exc)

    def _gosched_plain(self) -> None:
        """``gosched`` with no timer pending, any strategy."""
        stage = 0
        try:
            next(self._ticks)
            stage = 1
            runnable = self.runnable
            if len(runnable) - 1:
                cur = self.cur
                nxt = runnable[self._ystrat.pick_yield(runnable, cur, False)]
                self._record(nxt.gid)
                if nxt is cur:
                    return
                self.preemptions += 1
                cur.ran_at = self.now
                cur.early_mark = self.early_fires
                self.cur = nxt
                nxt.switch()
            return
        except StopIteration as exc:
            if not stage:
                self._limit_or_over()
                return self.gosched()  # the step budget was extended (see _limit_or_over)
            self._strategy_error(exc)
        except Exception as exc:  # noqa: BLE001 - the strategy's (e.g. SchedulingError)
            self._strategy_error(exc)

    def _sched_bytes(self, ev: str | None = None, obj: Any = None, yielding: bool = False) -> None:
        """``sched`` with no timer pending, reading the decision byte from the byte stream."""
        if yielding:
            return self.gosched()
        stage = 0
        try:
            next(self._ticks)
            stage = 1
            runnable = self.runnable
            n = len(runnable)
            if n - 1:
                nxt = runnable[self._bnext() % n]
                self._record(nxt.gid)
                cur = self.cur
                if nxt is cur:
                    return
                self.preemptions += 1
                cur.ran_at = self.now
                cur.early_mark = self.early_fires
                self.cur = nxt
                nxt.switch()
            return
        except StopIteration:
            if not stage:
                self._limit_or_over()
                return self.sched(ev, obj, yielding)  # the step budget was extended (see _limit_or_over)
            self._bytes_exhausted(self.strategy.pick)

    def _gosched_bytes(self) -> None:
        """``gosched`` with no timer pending, reading the decision byte from the byte stream."""
        stage = 0
        try:
            next(self._ticks)
            stage = 1
            runnable = self.runnable
            n = len(runnable)
            if n - 1:
                nxt = runnable[self._bnext() % n]
                self._record(nxt.gid)
                cur = self.cur
                if nxt is cur:
                    return
                self.preemptions += 1
                cur.ran_at = self.now
                cur.early_mark = self.early_fires
                self.cur = nxt
                nxt.switch()
            return
        except StopIteration:
            if not stage:
                self._limit_or_over()
                return self.gosched()  # the step budget was extended (see _limit_or_over)
            self._bytes_exhausted(self._ystrat.pick_yield)

    def _sched_timers(self, ev: str | None = None, obj: Any = None, yielding: bool = False) -> None:
        """``sched`` while timers are pending (the strategy may fire the earliest early)."""
        try:
            next(self._ticks)
        except StopIteration:
            self._limit_or_over()
        self._switch_to(self._decide_with_timers(self.cur, self._ystrat.pick_yield if yielding
                                                 else self.strategy.pick))

    def _gosched_timers(self) -> None:
        """``gosched`` while timers are pending."""
        self._sched_timers(None, None, True)

    def _bytes_exhausted(self, pick) -> None:
        """The byte stream ran out in the middle of a decision: from now on the plain paths,
        and this decision is the strategy's (its exhausted default)."""
        self._bnext = None
        self._rebind()
        runnable = self.runnable
        cur = self.cur
        try:
            nxt = runnable[pick(runnable, cur, False)]
        except Exception as exc:  # noqa: BLE001
            self._strategy_error(exc)
        self._record(nxt.gid)
        self._switch_to(nxt)

    def _switch_to(self, nxt: Goroutine) -> None:
        cur = self.cur
        if nxt is not cur:
            self.preemptions += 1
            cur.ran_at = self.now
            cur.early_mark = self.early_fires
            self.cur = nxt
            nxt.switch()

    def _sched_traced(self, ev: str | None = None, obj: Any = None, yielding: bool = False) -> None:
        """``sched`` of a run with ``trace=True``: records the event and preemptions."""
        try:
            next(self._ticks)
        except StopIteration:
            self._limit_or_over()
        if ev is not None:
            self.trace.event(self, ev, obj)
        runnable = self.runnable
        if len(runnable) - 1 or self.timers:
            cur = self.cur
            nxt = self._decide(cur, self._ystrat.pick_yield if yielding else self.strategy.pick)
            if nxt is not cur:
                self.preemptions += 1
                cur.ran_at = self.now
                cur.early_mark = self.early_fires
                self.trace.mark_preemption(self, cur, nxt)
                self.cur = nxt
                nxt.switch()

    def _gosched_traced(self) -> None:
        self._sched_traced("gosched", None, True)

    def _limit_or_over(self) -> None:
        """The countdown hit zero: the run is over (GreenletExit), or the step limit is passed
        (StepLimitExceeded), or - when the schedule fired timers early - the budget is extended
        once with early firing off, and this returns (the caller redoes its scheduling point)."""
        if self.over:
            raise GreenletExit()
        if self.early_fires and self.drained_at is None:
            self._drain()
            return
        self._beyond = 1
        self._step_limit()

    def _drain(self) -> None:
        """The step budget ran out in a run whose schedule fired timers early. Those firings may
        have piled up work faster than any real machine would (a tick every few decisions): a
        starvation the schedule caused, not the program. Go on for another ``max_steps`` steps
        with early firing off; a program that still does not finish really spins."""
        self.drained_at = self.steps
        self._budget += self.max_steps
        self._ticks = itertools.repeat(None, self.max_steps)
        if self.trace is not None:
            self.trace.event(self, "drain", f"step budget spent after {self.early_fires} early timer firings: "
                             f"{self.max_steps} more steps with no early firing", gid=0)

    def _early_ok(self, cur: Goroutine | None) -> bool:
        """May the earliest timer fire now, before the runnable goroutines run? Not while
        draining; not once a runnable goroutine has waited through ``early_cap`` early firings;
        not when the clock jump would make a runnable goroutine wait longer than
        ``max_starvation_s`` (the running one waits from now)."""
        if self.drained_at is not None:
            return False
        oldest_t = self.now
        oldest_e = self.early_fires
        for g in self.runnable:
            if g is not cur:
                if g.ran_at < oldest_t:
                    oldest_t = g.ran_at
                if g.early_mark < oldest_e:
                    oldest_e = g.early_mark
        if self.early_fires - oldest_e >= self.early_cap:
            return False
        b = self.max_starvation_s
        when = self.timers[0].when
        if b is None or when <= self.now or when - oldest_t <= b:
            return True
        if self.lift_one_in:  # the first firing past the realism bound: the schedule decides
            n, self.lift_one_in = self.lift_one_in, 0
            if self.choose_index(n, "starvation bound") == n - 1:
                self.max_starvation_s = None
                self.bound_lifted = True
                if self.trace is not None:
                    self.trace.event(self, "bound", f"this run leaves the {b:g} s realism bound: "
                                     "timers may fire early past it", gid=0)
                return True
        return False

    def _measure_starvation(self, when: float) -> None:
        """The clock jumps to ``when`` while goroutines are runnable: each has waited since it
        last ran (or became runnable); keep the longest, and each goroutine's longest
        (``starved_waits``: which goroutines a schedule starves, not only the first of them)."""
        waits = self.starved_waits
        for g in self.runnable:
            w = when - g.ran_at
            if w > waits.get(g.gid, 0.0):
                waits[g.gid] = w
            if w > self.starvation:
                self.starvation = w
                self.starved = (g.gid, g.name)

    def _strategy_error(self, exc: Exception) -> None:
        if isinstance(exc, (IndexError, TypeError)):
            exc = F.SchedulingError(f"strategy chose an invalid option ({type(exc).__name__}: {exc})")
        self._abort(exc)
        raise GreenletExit() from None

    def _bad_choice(self, i) -> None:
        self._abort(F.SchedulingError(f"strategy chose option {i!r} of {len(self.runnable)}"))
        raise GreenletExit()

    def park(self, wait: str, obj: Any = None) -> Any:
        """Block the running goroutine until someone calls :meth:`ready` on it (Go: ``gopark``).

        Returns the value handed over by the waker. ``wait`` says where it waits (for dumps).
        Raises StepLimitExceeded past ``max_steps``, GreenletExit once the run is over.
        """
        g = self.cur
        try:
            next(self._ticks)
        except StopIteration:
            self._limit_or_over()
        if self.observer is not None:
            self.observer.point(wait, obj)
        g.state = BLOCKED
        g.wait = wait
        self.runnable.remove(g)
        if self.trace is not None:
            self.trace.event(self, "block", wait if obj is None else f"{wait} {obj}", obj=obj)
        nxt = self._pick_after_block()
        if nxt is None:
            self.root.switch(_STUCK)
            raise GreenletExit()  # only reached if the root resumes us during teardown
        if nxt is not g:
            self._park_switches += 1
            self.cur = nxt
            nxt.switch()
        if self.over:
            raise GreenletExit()
        value = g.value
        g.value = None
        return value

    def choose_index(self, n: int, what: str) -> int:
        """A data decision in [0, n) (select case, map iteration start). No switch.
        ``n <= 1`` needs no decision and returns 0."""
        if n <= 1:
            return 0
        try:
            i = self.strategy.pick_index(n, what)
        except Exception as exc:  # noqa: BLE001 - a strategy error is ours, not the program's
            self._abort(exc)
            raise GreenletExit() from None
        if not 0 <= i < n:
            self._abort(F.SchedulingError(f"strategy chose index {i} of {n} for {what}"))
            raise GreenletExit()
        self.decisions.append(-(i + 1))
        if self.trace is not None:
            self.trace.event(self, "choose", f"{what} {i}/{n}")
        return i

    def _decide(self, cur: Goroutine | None, pick) -> Goroutine:
        """Ask the strategy which goroutine runs next (``runnable`` has >= 2 entries or a
        timer is pending) and record the decision."""
        if self.timers:
            return self._decide_with_timers(cur, pick)
        runnable = self.runnable
        try:
            i = pick(runnable, cur, False)
        except Exception as exc:  # noqa: BLE001 - e.g. SchedulingError from a replay
            self._abort(exc)
            raise GreenletExit() from None
        try:
            g = runnable[i]
        except (IndexError, TypeError):
            self._bad_choice(i)
        self.decisions.append(g.gid)
        return g

    def _decide_with_timers(self, cur: Goroutine | None, pick) -> Goroutine:
        """``_decide`` when timers are pending: option ``len(runnable)`` fires the earliest
        timer now (then the question is asked again). Few comparisons: it is hot too."""
        runnable = self.runnable
        while True:
            timers = self.timers
            timer = bool(timers) and bool(self._ticks.__length_hint__()) and (
                self.grace_deadline is _INF or timers[0].when <= self.grace_deadline) and self._early_ok(cur)
            if not timer and not len(runnable) - 1:
                return runnable[0]
            try:
                i = pick(runnable, cur, timer)
            except Exception as exc:  # noqa: BLE001 - e.g. SchedulingError from a replay
                self._abort(exc)
                raise GreenletExit() from None
            try:
                g = runnable[i]
            except IndexError:
                if i != len(runnable) or not timer:
                    self._bad_choice(i)
                self._record(TIMER)
                if cur is not None:  # it stops running while the timer fires
                    cur.ran_at = self.now
                    cur.early_mark = self.early_fires
                self._fire_next_timer(True)
                continue
            except TypeError:
                self._bad_choice(i)
            self._record(g.gid)
            return g

    def _pick_after_block(self) -> Goroutine | None:
        """Next goroutine after the running one blocked or exited; None if nothing can ever
        run (deadlock, end of run) or the step limit stopped the clock (failure stamped)."""
        runnable = self.runnable
        while not runnable:
            timers = self.timers
            if not timers or timers[0].when > self.grace_deadline:
                return None
            if not self._steps_left() and self.early_fires and self.drained_at is None:
                self._drain()
            if not self._steps_left():
                self._stamp(F.StepLimitExceeded(self._step_limit_msg()), self.cur or self._first_alive(), None)
                return None
            if self._all_timers_idle():
                # Only tickers nobody can receive from are left: Go would hang here forever
                # (its checkdead ignores goroutines asleep while timers are pending).
                return None
            self._fire_next_timer()
        if len(runnable) - 1 or self.timers:
            return self._decide(None, self.strategy.pick)
        return runnable[0]

    def _all_timers_idle(self) -> bool:
        for t in self.timers:
            if t.when > self.grace_deadline:
                continue
            if t.idle is None or not t.idle():
                return False
        return True

    # ------------------------------------------------------------------ virtual clock
    def add_timer(self, delay: float, fire: Callable[[], None], label: str,
                  idle: Callable[[], bool] | None = None) -> _TimerEntry:
        """Arm ``fire`` at now + ``delay`` virtual seconds (negative delays count as 0)."""
        return self.add_timer_at(self.now + max(0.0, delay), fire, label, idle)

    def add_timer_at(self, when: float, fire: Callable[[], None], label: str,
                     idle: Callable[[], bool] | None = None) -> _TimerEntry:
        """Arm ``fire`` at virtual time ``when`` exactly (seconds; a past time means now).
        Timers due at the same time fire in the order they were armed."""
        self._seq += 1
        if self.observer is not None:
            self.observer.touch("clock")
        t = _TimerEntry(when if when > self.now else self.now, self._seq, fire, label, idle)
        timers = self.timers
        heapq.heappush(timers, t)
        if len(timers) == 1:
            self._rebind()
        return t

    def cancel_timer(self, t: _TimerEntry) -> bool:
        """Remove a pending timer; False if it already fired or was cancelled."""
        timers = self.timers
        if self.observer is not None:
            self.observer.touch("clock")
        for i, x in enumerate(timers):
            if x is t:
                last = timers.pop()
                if i < len(timers):
                    timers[i] = last
                    heapq.heapify(timers)
                if not timers:
                    self._rebind()
                return True
        return False

    def _fire_next_timer(self, early: bool = False) -> None:
        t = heapq.heappop(self.timers)
        if not self.timers:
            self._rebind()
        if early:
            self.early_fires += 1
        if t.when > self.now:
            if self.runnable:
                self._measure_starvation(t.when)
            self.now = t.when
        next(self._ticks, None)
        if self.observer is not None:
            self.observer.timer(t.fire)
            return
        if self.trace is None:
            t.fire()
            return
        self.trace.event(self, "timer (early)" if early else "timer", t.label, gid=0)
        self._firing = True  # what the timer does (wake, spawn, close) is the scheduler's act
        try:
            t.fire()
        finally:
            self._firing = False

    # ------------------------------------------------------------------ failures
    def fail(self, failure: F.GoFailure, gid: int | None = None, frames=None):
        """Record ``failure`` with a full dump and raise it in the running goroutine.

        Once the run is over (another failure, teardown) raises GreenletExit instead: what a
        goroutine trips over while being unwound is not a finding.
        """
        if self.over:
            raise GreenletExit()
        self._stamp(failure, self.cur if gid is None else self.goroutines[gid - 1],
                    frames if frames is not None else F.frames_from_frame(sys._getframe(1)))
        raise failure

    def _step_limit_msg(self) -> str:
        if self.drained_at is not None:
            return (f"more than {self.max_steps} scheduling steps, and {self.max_steps} more after the schedule's "
                    f"{self.early_fires} early timer firings were switched off at step {self.drained_at}: "
                    f"the program spins (livelock or unfair spin loop), not starved by the schedule")
        return (f"more than {self.max_steps} scheduling steps with no timer fired early: the program spins "
                f"(livelock or unfair spin loop), not starved by the schedule")

    def _step_limit(self) -> None:
        self.fail(F.StepLimitExceeded(self._step_limit_msg()), frames=F.frames_from_frame(sys._getframe(2)))

    def _set_over(self) -> None:
        if self._steps_final is None:
            self._steps_final = self.steps
        self.over = True
        self._ticks = iter(())  # the next scheduling point goes to _limit_or_over

    def _abort(self, exc: BaseException) -> None:
        """An error of the runtime or the strategy (not of the program): end the run and
        re-raise ``exc`` from ``gosim.run``."""
        if self.internal is None:
            self.internal = exc
        self.over = True
        self._set_over()

    def _stamp(self, failure: F.GoFailure, g: Goroutine | None, frames=None) -> None:
        # Once the run is over, teardown unwinds parked goroutines through their finally
        # blocks (e.g. a deferred unlock of a mutex a cond-wait had released); whatever they
        # trip over then is an artefact of the teardown, not a program failure.
        if self.failure is not None or self.dead or self.internal is not None:
            return
        if frames is None:
            frames = F.frames_from_frame(g.glet.gr_frame if g is not None and g.glet is not None else None)
        failure.decision = len(self.decisions)
        if self.old_timers_effect is not None:
            failure.go_versions = f"{_goversion.OLD_TIMERS}: {self.old_timers_effect}"
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
        if self.trace is not None and failure.cause is not None:  # an assertion: who wrote what it read
            from .invariant import last_writers
            failure.written_by, failure.checked_state = last_writers(self, failure)
        self.failure = failure
        self.over = True
        self._set_over()
        if self.trace is not None:
            self.trace.event(self, "failure", failure.kind, gid=failure.goroutine or 0)

    # ------------------------------------------------------------------ the run
    def execute(self, main: Callable, args: tuple) -> None:
        """Run ``main(*args)`` as goroutine 1 until it and everything it left behind is done,
        or a failure happens (then ``self.failure`` is set). Raises RuntimeError when runs
        nest, and re-raises an error of the strategy (e.g. ``SchedulingError``) or of the
        runtime itself after tearing the run down."""
        global _rt, _FAST
        if _rt is not None:
            raise RuntimeError("gosim: runs do not nest")
        _rt = self
        self._rebind()
        self.root = greenlet.getcurrent()
        try:
            self.strategy.begin(self)
            self.cur = self.spawn(main, args, name="main")
            nxt: Goroutine | None = self.cur
            while nxt is not None:
                self.cur = nxt
                msg = nxt.glet.switch()
                if self.over:
                    break
                if msg is _STUCK:
                    if self.main_done:
                        break
                    self._stamp_deadlock()
                    break
                if not isinstance(msg, tuple):  # a goroutine left through GreenletExit
                    raise RuntimeError(f"gosim internal error: unexpected message {msg!r} from a goroutine")
                status, g = msg[0], msg[1]
                if status == "panic":
                    exc = msg[2]
                    if isinstance(exc, F.GoFailure):
                        self._stamp(exc, g, F.frames_from_traceback(exc.__traceback__))
                    else:
                        from .gopanic import panic_detail

                        self._stamp(F.GoroutinePanic(panic_detail(exc), cause=exc), g,
                                    F.frames_from_traceback(exc.__traceback__))
                    break
                g.state = DONE
                self.runnable.remove(g)
                if self.observer is not None:
                    self.observer.exited(g)
                if self.trace is not None:
                    self.trace.event(self, "exit", f"G{g.gid}", gid=g.gid)
                if g.gid == 1:
                    self.main_done = True
                    if not self.check_leaks:
                        break
                    self.grace_deadline = self.now + self.leak_grace
                self.cur = None
                nxt = self._pick_after_block()
            if nxt is None and not self.main_done and self.failure is None and self.internal is None:
                # stuck from the root (the last runnable goroutine exited)
                self._stamp_deadlock()
            if self.failure is None and self.internal is None and self.check_leaks and self.main_done:
                leaked = [g for g in self.goroutines if g.state is not DONE]
                if leaked:
                    names = ", ".join(f"G{g.gid} {g.name} ({g.wait or g.state})" for g in leaked)
                    self._stamp(F.GoroutineLeak(f"{len(leaked)} goroutine(s) still alive after main returned: {names}"),
                                leaked[0])
        except GreenletExit:
            # a strategy error while the root picked the next goroutine (after an exit)
            if self.internal is None:
                raise
        finally:
            self._teardown()
            _rt = None
            CURRENT.gosched = _no_run
            _FAST = None
        if self.internal is not None:
            raise self.internal

    def _stamp_deadlock(self) -> None:
        """Go's checkdead: every goroutine is asleep. The failing goroutine (and the crash
        state) come from the lock cycle when there is one (``waitfor``), else goroutine 1."""
        from . import waitfor

        cycle = waitfor.lock_cycle(self.goroutines)
        if cycle:
            rows = waitfor.cycle_members(cycle)
            d = F.Deadlock("all goroutines are asleep - deadlock!")
            d.cycle = [top.func if top is not None else g.name for g, top in rows]
            d.go_cycle = [(f"{top.go_func} ({top.go_site})" if top.go_func else top.func) if top is not None
                          else g.name for g, top in rows]
            d.cycle_text = waitfor.describe(rows)
            self._stamp(d, rows[0][0])
            return
        first = self.goroutines[0]
        self._stamp(F.Deadlock("all goroutines are asleep - deadlock!"),
                    first if first.state is not DONE else self._first_alive())

    def _first_alive(self) -> Goroutine | None:
        return next((g for g in self.goroutines if g.state is not DONE), None)

    def _teardown(self) -> None:
        # Go kills every goroutine when the process exits; running their finally blocks
        # here, with every runtime operation refusing, keeps later runs clean.
        self.dead = True
        self.over = True
        self._set_over()
        idle = _IDLE
        for g in self.goroutines:
            glet = g.glet
            box = g.box
            if box is not None and box[0] is not None:  # never started: its greenlet goes back idle
                box[0] = None
                if len(idle) < _POOL_MAX:
                    idle.append((glet, box))
            elif glet is not None and glet and not glet.dead:
                try:
                    glet.throw(GreenletExit)
                except GreenletExit:
                    pass
                except BaseException:  # noqa: BLE001 - a finally block misbehaving during teardown
                    pass
            g.glet = None
            g.switch = None
            g.box = None
