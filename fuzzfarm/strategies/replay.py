"""Replay a recorded decision list exactly, failing loudly on any divergence.

The list is ``RunReport.decisions`` of any run, whatever strategy produced it. A decision that
does not fit (a goroutine that is not runnable, a timer when none is pending, an index out of
range, a goroutine decision where a data choice is recorded) raises ``SchedulingError``
saying where and how the run diverged. With ``allow_incomplete=True`` a run may outlive the
list; afterwards the default of the bytes strategy applies (keep running the current goroutine).
"""

from __future__ import annotations

from fuzzfarm.gosim.failures import SchedulingError

from .base import next_index, stay_index


class ReplayStrategy:
    """Replay ``decisions`` (``RunReport.decisions``). Raises SchedulingError on divergence."""

    def __init__(self, decisions: list[int], allow_incomplete: bool = False):
        self.decisions = list(decisions)
        self.i = 0
        self.allow_incomplete = allow_incomplete

    def begin(self, rt) -> None:
        """Rewind: every run replays the list from its start."""
        self.i = 0

    def _next(self, what: str) -> int | None:
        if self.i >= len(self.decisions):
            if self.allow_incomplete:
                return None
            raise SchedulingError(f"schedule ended early: decision {self.i} ({what}) is not recorded")
        v = self.decisions[self.i]
        self.i += 1
        return v

    def pick(self, runnable, current, timer: bool) -> int:
        """The recorded goroutine (or timer). Raises SchedulingError if it does not fit."""
        return self._pick(runnable, current, timer, stay_index)

    def pick_yield(self, runnable, current, timer: bool) -> int:
        """As ``pick``; past the end of an incomplete list, round robin (the bytes default)."""
        return self._pick(runnable, current, timer, next_index)

    def _pick(self, runnable, current, timer: bool, default) -> int:
        v = self._next("goroutine")
        if v is None:
            return default(runnable, current)
        if v < 0:
            raise SchedulingError(f"decision {self.i - 1}: expected a goroutine choice, recorded a data choice {-v - 1}")
        if v == 0:
            if not timer:
                raise SchedulingError(f"decision {self.i - 1}: recorded a timer firing but no timer is pending")
            return len(runnable)
        for i, g in enumerate(runnable):
            if g.gid == v:
                return i
        raise SchedulingError(f"decision {self.i - 1}: recorded G{v} is not runnable; runnable are "
                              f"{[g.gid for g in runnable]}")

    def pick_index(self, n: int, what: str) -> int:
        """The recorded data choice. Raises SchedulingError if it does not fit."""
        v = self._next(what)
        if v is None:
            return 0
        if v >= 0:
            raise SchedulingError(f"decision {self.i - 1}: expected a data choice ({what}), recorded goroutine/timer {v}")
        i = -v - 1
        if i >= n:
            raise SchedulingError(f"decision {self.i - 1}: recorded index {i} but {what} has only {n} options")
        return i
