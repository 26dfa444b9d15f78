"""Event trace of one run: record, then render as a readable interleaving timeline.

Recording is off unless ``trace=True`` is passed to ``run`` (it walks frames to find the
project line of every event). Everything recorded is deterministic: goroutine ids, per-run
object serials, virtual time, function names and line numbers. Never ``id()`` or wall time.
"""

from __future__ import annotations

import dataclasses
import sys

from greenlet import getcurrent

from .projectcode import is_project_file, sanitize
from .gonames import go_site
from .race import _site as _race_site


@dataclasses.dataclass(frozen=True)
class Event:
    """One trace event. ``step``: scheduling step; ``now``: virtual seconds; ``gid``: goroutine
    (0 = the scheduler itself, e.g. a timer firing); ``kind``/``detail``: what happened;
    ``site``: the project function and line that caused it; ``preempt``: a preemption."""

    step: int
    decision: int
    now: float
    gid: int
    kind: str
    detail: str
    site: str
    preempt: bool = False
    # the objects the event is on (labels: a mutex, a channel, a map, a Shared field), for the
    # failure's slice (trace_slice.py); not part of ``to_json``, which keeps its eight fields
    objs: tuple = ()

    def to_json(self) -> list:
        """``[step, decision, now, gid, kind, detail, site, preempt]``."""
        return [self.step, self.decision, self.now, self.gid, self.kind, self.detail, self.site, self.preempt]


def _site() -> str:
    """``function file:line`` of the innermost project frame of the caller, or ""."""
    f = sys._getframe(2)
    while f is not None:
        code = f.f_code
        if is_project_file(code.co_filename):
            py = f"{code.co_filename.rsplit('/', 1)[-1]}:{f.f_lineno}"
            go = go_site(code, f.f_lineno)
            if go is not None:  # Go's name and line, the Python site beside it
                return f"{go[0]} {go[1]} [{py}]"
            name = getattr(code, "co_qualname", code.co_name).replace("<locals>.", "")
            return f"{name} {py}"
        f = f.f_back
    return ""


# events whose detail is the label of the object they are on
_ON_DETAIL = frozenset({"lock", "trylock", "unlock", "rlock", "tryrlock", "runlock", "send", "recv", "close", "read",
                        "write", "cond.signal", "cond.broadcast", "cancel", "wg.wait", "once", "timer.stop",
                        "ticker.stop", "map.read", "map.iter"})


def _objects(kind: str, detail: str, obj, map_of: dict) -> tuple:
    """The objects of one event, from what the runtime recorded (see ``Event.objs``)."""
    if kind in _ON_DETAIL or kind.startswith("atomic."):
        return (detail,) if detail else ()
    if kind.startswith("map.write"):  # ``m['k']`` or ``clear(m)``: the map (gomap says which)
        base = map_of.get(detail)
        return (base,) if base else ()
    if kind == "wg.add":  # ``wg +1``
        return (detail.rsplit(" ", 1)[0],)
    if kind == "block" and obj is not None and not detail.startswith("sleep"):
        return (sanitize(str(obj)),)
    return ()


class Trace:
    """The recorded events of one run, in order."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        # objects the next event is on when its detail does not say (a select's channels)
        self.next_objs: tuple | None = None
        # checked reads (Shared, Var, Map) of each goroutine with the write each saw: gid ->
        # [(code, line, label, writer gid, writer site)], the last READS_KEPT (invariant.py)
        self.reads: dict[int, list] = {}
        self.map_of: dict[str, str] = {}  # a map write's detail (``m['k']``) -> the map's label

    READS_KEPT = 32

    def read(self, rt, loc, frame) -> None:
        """Note a checked read of race location ``loc`` by the running goroutine at ``frame``,
        with the last write the race detector recorded on it (gid, site; 0/None: none)."""
        if rt.cur is None or getcurrent() is rt.root:
            return
        site = _race_site(frame)  # the innermost project frame, as the detector finds it
        if site is None:
            return
        # the detector's record of this run only: a location kept across runs (a module-level Var)
        # still holds an earlier run's writer until this run's detector touches it
        fresh = rt.race is not None and loc.det is rt.race
        rows = self.reads.setdefault(rt.cur.gid, [])
        rows.append((site[0], site[1], loc.label, loc.wg if fresh else 0, loc.ws if fresh else None))
        if len(rows) > self.READS_KEPT:
            del rows[0]

    def event(self, rt, kind: str, detail=None, gid: int | None = None, obj=None) -> None:
        """Append one event at the runtime's current step, decision index and virtual time.
        ``gid`` defaults to the running goroutine (0 when the scheduler itself acts); ``obj``:
        the object a ``block`` event waits on."""
        if gid is None:
            gid = rt.cur.gid if rt.cur is not None and not getattr(rt, "_firing", False) else 0
        # The scheduler's own events (gid 0) and anything done from the root greenlet have no
        # project site: the root's stack is whoever called gosim.run, which varies.
        site = "" if gid == 0 or getcurrent() is rt.root else _site()
        text = "" if detail is None else sanitize(str(detail))
        objs = None
        if self.next_objs is not None and kind in ("select", "block"):  # set by select() for these two
            objs, self.next_objs = self.next_objs, None
        if objs is None:
            objs = _objects(kind, text, obj, self.map_of)
        self.events.append(Event(rt.steps, len(rt.decisions), rt.now, gid, kind, text, site, False, objs))

    def mark_preemption(self, rt, cur, nxt) -> None:
        """Record that the schedule switched away from ``cur`` (still runnable) to ``nxt``."""
        self.events.append(Event(rt.steps, len(rt.decisions), rt.now, cur.gid, "preempt",
                                 f"G{cur.gid} -> G{nxt.gid}", _site(), True))

    @property
    def preemptions(self) -> int:
        """Number of preemptions recorded."""
        return sum(1 for e in self.events if e.preempt)

    def to_json(self) -> list:
        """The events as JSON-able lists ``[step, decision, now, gid, kind, detail, site, preempt]``."""
        return [e.to_json() for e in self.events]

    def render(self, goroutines=None, *, limit: int | None = None) -> str:
        """Text timeline: one line per event, goroutine columns as ``G<n>``, preemptions
        marked ``>>``. ``goroutines`` (the run's Goroutine list) adds a legend of spawn sites."""
        lines = []
        if goroutines:
            lines.append("goroutines:")
            for g in goroutines:
                lines.append(f"  G{g.gid:<3} {g.name}" + (f"  (created by {g.created_by})" if g.created_by else ""))
            lines.append("")
        lines += self.render_rows(self.events if limit is None else self.events[-limit:])
        return "\n".join(lines)

    @staticmethod
    def render_rows(events) -> list[str]:
        """The timeline's header and one line per event of ``events`` (a long detail wrapped)."""
        import textwrap

        lines = [f"{'step':>5} {'dec':>4} {'t(s)':>8}  {'G':<4} {'event':<18} {'detail':<34} site"]
        pad = " " * 43  # continuation lines of a long detail: under the detail column
        for e in events:
            mark = ">>" if e.preempt else "  "
            detail = e.detail
            if e.objs and (e.kind == "select" or detail.startswith("select")):  # which channels
                detail = f"{detail} {', '.join(e.objs)}".strip()
            chunks = textwrap.wrap(detail, 34, break_on_hyphens=False) or [""]
            lines.append(f"{e.step:>5} {e.decision:>4} {e.now:>8.3f}{mark}G{e.gid:<3} {e.kind:<18} {chunks[0]:<34} {e.site}")
            lines.extend(f"{pad}{c}" for c in chunks[1:])  # wrapped, never cut
        return lines
