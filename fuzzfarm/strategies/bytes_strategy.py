"""Decisions from fuzz bytes: one byte per decision, ``byte % options``.

Options for a goroutine decision are the runnable goroutines in id order, then (when a timer
is pending) "fire the earliest timer". Once the bytes run out the default is fixed and
deterministic: keep running the current goroutine (or the lowest id if it blocked), never
fire a timer early, take the first select case / iteration start.

With ``log=True`` each consumed byte is logged as ``(offset, options, stay, chosen)`` so the
minimizer can rewrite a preemption into "stay" (see ``preemption_edits``).
"""

from __future__ import annotations

from .base import stay_index


class BytesStrategy:
    """Schedule from ``data[start:end]`` (``end`` defaults to ``len(data)``)."""

    __slots__ = ("data", "pos", "end", "log")

    def __init__(self, data: bytes, start: int = 0, end: int | None = None, log: bool = False):
        self.data = data
        self.pos = start
        self.end = len(data) if end is None else end
        self.log: list[tuple[int, int, int, int]] | None = [] if log else None

    def begin(self, rt) -> None:
        pass

    def pick(self, runnable, current, timer: bool) -> int:
        pos = self.pos
        if pos >= self.end:
            return stay_index(runnable, current)
        self.pos = pos + 1
        n = len(runnable) + (1 if timer else 0)
        i = self.data[pos] % n
        if self.log is not None:
            self.log.append((pos, n, stay_index(runnable, current) if current is not None else -1, i))
        return i

    def pick_index(self, n: int, what: str) -> int:
        pos = self.pos
        if pos >= self.end:
            return 0
        self.pos = pos + 1
        return self.data[pos] % n

    @property
    def consumed(self) -> int:
        return self.pos

    def preemption_edits(self) -> list[tuple[int, int]]:
        """``(offset, byte)`` rewrites that turn each logged preemption into "stay"."""
        assert self.log is not None, "construct with log=True"
        return [(off, stay) for off, n, stay, chosen in self.log if stay >= 0 and chosen != stay]
