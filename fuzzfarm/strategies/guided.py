"""Follow a recorded schedule by goroutine identity, optionally refusing one preemption.

Used by schedule minimization. Rewriting one byte of a bytes schedule into "stay" shifts how
every later byte is read (indices are into runnable lists that now differ), so the rest of
the interleaving is lost. Following the recorded *goroutine ids* instead keeps it: decision
``drop`` keeps the current goroutine running, every other decision picks the recorded
goroutine when it is runnable (else the current one), fires a timer when one was recorded and
one is pending, and takes recorded data choices when in range. Wrapped in
``RecordingStrategy`` the result becomes an ordinary bytes input, which the caller re-checks.
"""

from __future__ import annotations

from .base import stay_index


class GuidedStrategy:
    """``decisions``: ``RunReport.decisions`` of the run to follow; ``drop``: the decision index
    whose preemption to refuse (None: none). After a run, ``preemptions_at`` lists the decision
    indices where the run preempted (switched away from a goroutine that could continue)."""

    def __init__(self, decisions, drop: int | None = None):
        self.decisions = list(decisions)
        self.drop = drop
        self.i = 0
        self.preemptions_at: list[int] = []

    def begin(self, rt) -> None:
        self.i = 0
        self.preemptions_at = []

    def _recorded(self):
        v = self.decisions[self.i] if self.i < len(self.decisions) else None
        self.i += 1
        return v

    def pick(self, runnable, current, timer: bool) -> int:
        at = self.i
        v = self._recorded()
        stay = stay_index(runnable, current)
        if at == self.drop and current is not None:
            return stay
        choice = stay
        if v == 0 and timer:
            choice = len(runnable)
        elif v is not None and v > 0:
            for k, g in enumerate(runnable):
                if g.gid == v:
                    choice = k
                    break
        if current is not None and choice < len(runnable) and runnable[choice] is not current:
            self.preemptions_at.append(at)
        return choice

    def pick_index(self, n: int, what: str) -> int:
        v = self._recorded()
        if v is not None and v < 0 and -v - 1 < n:
            return -v - 1
        return 0


TIMER_CHOICE = 0


class BoundedStrategy:
    """Preemption-bounded search (Musuvathi & Qadeer, CHESS): keep the current goroutine
    running at every decision except those in ``overrides`` ({decision index: gid, or 0 to fire
    the earliest timer}); when the current goroutine blocked, run the lowest-id runnable one.
    With ``overrides`` empty this is the bytes strategy's default schedule; ``k`` overrides make a
    schedule with at most ``k`` preemptions. After a run, ``points`` lists every decision as
    ``(index, current gid or None, runnable gids, timer pending, event)`` for enumerating
    overrides; ``event`` is the kind of the trace event the current goroutine performed just
    before the decision (``"map.write"``, ``"lock"``, ...) when the run is traced, else None."""

    def __init__(self, overrides: dict[int, int] | None = None):
        self.overrides = dict(overrides or {})
        self.i = 0
        self.points: list[tuple[int, int | None, tuple[int, ...], bool, str | None]] = []
        self._trace = None

    def begin(self, rt) -> None:
        self.i = 0
        self.points = []
        self._trace = getattr(rt, "trace", None)

    def _event_before(self, at: int, current) -> str | None:
        events = self._trace.events if self._trace is not None else None
        if not events or current is None:
            return None
        e = events[-1]
        return e.kind if e.decision == at and e.gid == current.gid else None

    def pick(self, runnable, current, timer: bool) -> int:
        at = self.i
        self.i += 1
        self.points.append((at, current.gid if current is not None else None,
                            tuple(g.gid for g in runnable), timer, self._event_before(at, current)))
        want = self.overrides.get(at)
        if want == TIMER_CHOICE and timer:
            return len(runnable)
        if want is not None:
            for k, g in enumerate(runnable):
                if g.gid == want:
                    return k
        return stay_index(runnable, current)

    def pick_index(self, n: int, what: str) -> int:
        self.i += 1
        return 0
