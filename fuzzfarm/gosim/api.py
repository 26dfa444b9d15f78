"""Top-level Go statements: ``go``, ``gosched``, and ``run`` (one deterministic execution)."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from .runtime import gosched  # noqa: F401  (defined next to the scheduler: see its docstring)
from . import goversion
from .failures import GoFailure
from .runtime import EARLY_CAP, Runtime, current_runtime
from .trace import Trace


def go(fn: Callable, *args: Any, name: str | None = None) -> int:
    """``go fn(args...)``: start a goroutine running ``fn(*args)``; returns its id (main is 1,
    then 2, 3, ... in creation order). A scheduling point: the new goroutine may run at once,
    later, or never. ``name`` labels it in dumps and traces (default: ``fn``'s qualified name).
    Raises RuntimeError outside a run."""
    rt = current_runtime()
    g = rt.spawn(fn, args, name=name)
    rt.sched()
    return g.gid


def goroutine_id() -> int:
    """Id of the running goroutine (1 = main). Go has no counterpart (``runtime.goid`` is
    internal); useful in harnesses and assertions. Raises RuntimeError outside a run."""
    return current_runtime().cur.gid


@dataclasses.dataclass
class RunReport:
    """What one run did.

    ``failure``: the GoFailure or None. ``decisions``: the recorded schedule (ints; see
    ``runtime``); ``steps``: scheduling steps; ``preemptions``: switches away from a goroutine
    that could have continued; ``switches``: all context switches; ``now``: final virtual
    time (s); ``goroutines``: how many ran; ``trace``: events when tracing was on;
    ``starvation``: the longest virtual time (s) a runnable goroutine waited while the clock
    advanced (``starved``: its ``(gid, name)``), under the bound ``max_starvation_s`` (None:
    none in time); ``early_fires``: timers the schedule fired early; ``drained_at``: the step
    where early firing was switched off (see ``docs/timing.md``).
    """

    failure: GoFailure | None
    decisions: list[int]
    steps: int
    preemptions: int
    switches: int
    now: float
    goroutines: int
    trace: Trace | None
    legend: list[tuple[int, str, str | None]]
    starvation: float = 0.0
    starved: tuple[int, str] | None = None
    early_fires: int = 0
    drained_at: int | None = None
    max_starvation_s: float | None = None  # the bound the run had (None: none in time)
    bound_lifted: bool = False  # the schedule left the realism bound (``lift_one_in``)
    # every goroutine kept waiting at a clock jump: (gid, name, longest wait), longest first
    starved_all: list[tuple[int, str, float]] = dataclasses.field(default_factory=list)
    realism_bound_s: float | None = None  # the bound the run started with (kept when lifted)
    go_version: str = goversion.DEFAULT  # the Go release whose semantics the run modelled

    @property
    def failed(self) -> bool:
        """True when the run ended in a failure."""
        return self.failure is not None

    def to_json(self) -> dict:
        """Everything a run produced that is deterministic, as JSON-able data: decisions,
        counters, virtual time, goroutine legend, failure (``GoFailure.to_json``) and trace
        events (when recorded). Equal inputs give equal JSON in every process."""
        return {
            "decisions": list(self.decisions),
            "steps": self.steps,
            "preemptions": self.preemptions,
            "switches": self.switches,
            "now": self.now,
            "goroutines": self.goroutines,
            "legend": [list(r) for r in self.legend],
            "starvation": self.starvation,
            "early_fires": self.early_fires,
            "drained_at": self.drained_at,
            "bound_lifted": self.bound_lifted,
            "failure": self.failure.to_json() if self.failure is not None else None,
            "trace": self.trace.to_json() if self.trace is not None else None,
        }

    def render_slice(self) -> str:
        """The events on the objects in the failure, with the goroutines involved
        (``trace_slice.py``); "" without a failure or a trace."""
        if self.trace is None or self.failure is None:
            return ""
        from .trace_slice import render_slice
        return render_slice(self.trace, self.failure, _Legend(self.legend))

    def trace_slice(self):
        """The failure's ``trace_slice.Slice`` (event indices, objects, goroutines), or None."""
        if self.trace is None or self.failure is None:
            return None
        from .trace_slice import failure_slice
        return failure_slice(self.trace.events, self.failure)

    def render_trace(self, limit: int | None = None, *, lead: bool = True) -> str:
        """The interleaving timeline (needs ``trace=True``), with the crash dump if any; a failed
        run's text leads with :meth:`render_slice` (``lead=False``: without it)."""
        if self.trace is None:
            return "(run without trace=True: no events recorded)"
        head = self.render_slice() if lead else ""
        text = (f"{head}\n\nfull timeline:\n" if head else "") + self.starvation_line() + "\n\n" \
            + self.trace.render(_Legend(self.legend), limit=limit)
        if self.failure is not None:
            text += "\n\n" + self.failure.render()
        return text

    def starvation_line(self) -> str:
        """One line stating the run's starvation figure and its bound (see ``docs/timing.md``)."""
        who = f" (G{self.starved[0]} {self.starved[1]})" if self.starved else ""
        bound = "none" if self.max_starvation_s is None else f"{self.max_starvation_s:g} s"
        if self.bound_lifted:
            bound = f"realism bound {self.realism_bound_s:g} s, left by this schedule"
        text = (f"starvation: {self.starvation:g} s{who} (bound {bound}), the longest a runnable goroutine waited "
                f"while the clock advanced; {self.early_fires} timer(s) fired early")
        if self.drained_at is not None:
            text += f"; early firing switched off at step {self.drained_at} (step budget spent)"
        return text

    def raise_failure(self) -> None:
        """Re-raise the failure, if any (harnesses do this so libFuzzer sees a crash)."""
        if self.failure is not None:
            raise self.failure


class _Legend(list):
    def __init__(self, rows):
        super().__init__(_G(*r) for r in rows)


@dataclasses.dataclass
class _G:
    """One row of a trace's goroutine legend: id, name, creation site."""

    gid: int
    name: str
    created_by: str | None


def _starved_all(rt) -> list[tuple[int, str, float]]:
    names = {g.gid: g.name for g in rt.goroutines}
    return sorted(((gid, names.get(gid, "?"), w) for gid, w in rt.starved_waits.items() if w > 0),
                  key=lambda r: (-r[2], r[0]))


def run(main: Callable, *args: Any, strategy, max_steps: int = 20_000, check_leaks: bool = True,
        leak_grace: float = 60.0, trace: bool = False, race: bool | None = None,
        max_starvation_s: float | None = None, early_cap: int = EARLY_CAP, lift_one_in: int = 0,
        go_version: str = goversion.DEFAULT) -> RunReport:
    """Run ``main(*args)`` as goroutine 1 under ``strategy``; never raises the program's failure
    (see ``RunReport.failure``). Raises RuntimeError when called inside another run and
    ``fuzzfarm.gosim.SchedulingError`` when a replayed schedule diverges.

    ``max_steps`` bounds scheduling steps (StepLimitExceeded beyond it); ``check_leaks``
    reports goroutines alive after main returns, once they had ``leak_grace`` virtual seconds
    to finish; ``trace`` records events for ``RunReport.render_trace``; ``race`` is the data
    race detector (``gosim.DataRace``): None (default) starts it at the first ``Shared``/``Var``
    access of the run, True runs it from the start (``Map`` accesses checked too), False never;
    ``max_starvation_s`` and ``early_cap`` bound how long the schedule's early timer firings may
    keep a runnable goroutine waiting; with ``lift_one_in`` N >= 2 the bound is a realism bound
    the schedule may leave for the rest of the run (one decision in N options; see ``Runtime``
    and docs/timing.md); ``go_version`` is the Go release whose semantics the run models
    (default ``goversion.DEFAULT``, "1.27"; below "1.23": the old timer channels,
    docs/RUNTIME.md#go-version). ValueError for a version that is not a Go release.
    """
    if race is not None and race is not True and race is not False:  # "False" or 1 would read as on
        raise TypeError(f"race={race!r}: use None (start at the first Shared/Var access), True or False")
    rt = Runtime(strategy, max_steps=max_steps, check_leaks=check_leaks, leak_grace=leak_grace, trace=trace,
                 race=race, max_starvation_s=max_starvation_s, early_cap=early_cap, lift_one_in=lift_one_in,
                 go_version=go_version)
    rt.execute(main, args)
    return RunReport(
        failure=rt.failure,
        decisions=rt.decisions,
        steps=rt.steps,
        preemptions=rt.preemptions,
        switches=rt.switches,
        now=rt.now,
        goroutines=len(rt.goroutines),
        trace=rt.trace,
        legend=[(g.gid, g.name, g.created_by) for g in rt.goroutines],
        starvation=rt.starvation,
        starved=rt.starved,
        early_fires=rt.early_fires,
        drained_at=rt.drained_at,
        max_starvation_s=rt.max_starvation_s,
        bound_lifted=rt.bound_lifted,
        realism_bound_s=max_starvation_s,
        starved_all=_starved_all(rt),
        go_version=rt.go_version,
    )
