"""Who broke an invariant: the last Go function that wrote the state a failing assertion read.

A bug that does not crash Go is caught by the harness's own assertion (``assert len(children)
<= 1`` at quiescence): the run ends as a goroutine panic with an ``AssertionError`` at the
assertion, which is where the bug was noticed, not where it was made. When the assertion reads
race-checked state (a ``Shared`` field, a ``Var``, a ``Map``), the race detector holds the last
write of each of those locations: its goroutine and its site (``race.Loc``). A traced run notes
every such read with the write it saw (``Trace.read``); this module picks the reads of the
failing assertion and names their writers.

Which reads: those the failing goroutine made on the lines of the failing statement (the
``assert``, or the ``raise AssertionError``), else, when the statement reads only a local that
was loaded earlier, the last read of each location in the asserting function. State kept in
plain Python values is not race-checked and is not named (the text says so).
"""

from __future__ import annotations

from . import failures as F
from .projectcode import innermost_project_frame

MAX_NAMED = 3


def _assert_site(exc: BaseException):
    """(code, first line, last line) of the failing statement in the innermost project frame."""
    last, pos = innermost_project_frame(exc.__traceback__)
    if last is None:
        return None
    line, end = (pos[0], pos[1]) if pos is not None else (None, None)
    line = line or last.tb_lineno
    return last.tb_frame.f_code, line, end or line


def _writer_text(rt, label: str, wg: int, ws) -> str:
    if not wg or ws is None:
        return f"{label}: no write recorded (written before the run, or the race detector was off)"
    g = rt.goroutines[wg - 1] if 0 < wg <= len(rt.goroutines) else None
    frame = F._frame_of(ws[0], ws[1])
    return f"{label}: last written by G{wg} [{g.name if g else '?'}] at {frame}"


def last_writers(rt, failure: F.GoFailure) -> tuple[str | None, list[str]]:
    """The ``invariant:`` text of an assertion failure in a traced run (None otherwise): the
    state the assertion read and the Go function that last wrote each of it; and the labels of
    those locations."""
    cause = failure.cause
    if rt.trace is None or not isinstance(cause, AssertionError) or failure.goroutine is None:
        return None, []
    site = _assert_site(cause)
    if site is None:
        return None, []
    code, first, last = site
    reads = rt.trace.reads.get(failure.goroutine, [])
    on_line = [r for r in reads if r[0] is code and first <= r[1] <= last]
    rows = on_line or [r for r in reads if r[0] is code]
    named: dict[str, tuple] = {}
    for r in reversed(rows):  # the latest read of each location, the latest first
        if r[2] not in named:
            named[r[2]] = r
    where = f"{code.co_filename.rsplit('/', 1)[-1]}:{first}"
    if not named:
        return (f"invariant: the assertion at {where} read no race-checked state (declare what it checks "
                f"gosim.Shared / gosim.Var / gosim.Map to have its last writer named)"), []
    how = "read" if on_line else f"read earlier in {getattr(code, 'co_qualname', code.co_name)}"
    chosen = list(named.items())[:MAX_NAMED]
    parts = [_writer_text(rt, label, r[3], r[4]) for label, r in chosen]
    return f"invariant: the assertion at {where} {how}\n  " + "\n  ".join(parts), [label for label, _ in chosen]
