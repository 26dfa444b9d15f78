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


class Trace:
    """The recorded events of one run, in order."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def event(self, rt, kind: str, detail=None, gid: int | None = None) -> None:
        """Append one event at the runtime's current step, decision index and virtual time.
        ``gid`` defaults to the running goroutine (0 when the scheduler itself acts)."""
        if gid is None:
            gid = rt.cur.gid if rt.cur is not None and not getattr(rt, "_firing", False) else 0
        # The scheduler's own events (gid 0) and anything done from the root greenlet have no
        # project site: the root's stack is whoever called gosim.run, which varies.
        site = "" if gid == 0 or getcurrent() is rt.root else _site()
        self.events.append(Event(rt.steps, len(rt.decisions), rt.now, gid, kind,
                                 "" if detail is None else sanitize(str(detail)), site))

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
        import textwrap  # here: rendering is for a failure's report, not a fuzz child's start

        lines = []
        if goroutines:
            lines.append("goroutines:")
            for g in goroutines:
                lines.append(f"  G{g.gid:<3} {g.name}" + (f"  (created by {g.created_by})" if g.created_by else ""))
            lines.append("")
        lines.append(f"{'step':>5} {'dec':>4} {'t(s)':>8}  {'G':<4} {'event':<18} {'detail':<34} site")
        events = self.events if limit is None else self.events[-limit:]
        pad = " " * 43  # continuation lines of a long detail: under the detail column
        for e in events:
            mark = ">>" if e.preempt else "  "
            chunks = textwrap.wrap(e.detail, 34, break_on_hyphens=False) or [""]
            lines.append(f"{e.step:>5} {e.decision:>4} {e.now:>8.3f}{mark}G{e.gid:<3} {e.kind:<18} {chunks[0]:<34} {e.site}")
            lines.extend(f"{pad}{c}" for c in chunks[1:])  # wrapped, never cut
        return "\n".join(lines)
