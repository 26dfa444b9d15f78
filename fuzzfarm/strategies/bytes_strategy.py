"""Decisions from fuzz bytes: one byte per decision, ``byte % options``.

Options for a goroutine decision are the runnable goroutines in id order, then (when a timer
is pending) "fire the earliest timer". Once the bytes run out the default is fixed and
deterministic: keep running the current goroutine (or the lowest id if it blocked); never
fire a timer early; take the first select case / iteration start. The one exception keeps
spin-wait loops live as in Go: a goroutine that calls ``gosched()`` more than
``YIELD_PATIENCE`` times in a row (without blocking, and with no other goroutine running in
between) hands over to the next goroutine in id order.

With ``log=True`` each consumed goroutine-decision byte is logged as ``(offset, options,
stay, chosen)`` so the minimizer can rewrite a preemption into "stay" (see
``preemption_edits``).
"""

from __future__ import annotations

from .base import next_index, stay_index

YIELD_PATIENCE = 8


class BytesStrategy:
    """Schedule from ``data[start:end]`` (``end`` defaults to ``len(data)``).

    ``consumed`` is the offset of the next unread byte. Raises nothing: every byte string,
    including the empty one, is a valid schedule.
    """

    __slots__ = ("data", "pos", "end", "log", "_ygid", "_yields")

    def __init__(self, data: bytes, start: int = 0, end: int | None = None, log: bool = False):
        self.data = data
        self.pos = start
        self.end = len(data) if end is None else min(end, len(data))
        self.log: list[tuple[int, int, int, int]] | None = [] if log else None
        self._ygid = 0
        self._yields = 0

    def begin(self, rt) -> None:
        """Nothing to reset: a BytesStrategy drives one run."""

    def pick(self, runnable, current, timer: bool) -> int:
        """``data[pos] % (len(runnable) + timer)``; when exhausted, stay on ``current``."""
        pos = self.pos
        if pos >= self.end:
            if current is None or current.gid != self._ygid:
                self._ygid = 0
            return stay_index(runnable, current)
        self.pos = pos + 1
        i = self.data[pos] % (len(runnable) + 1 if timer else len(runnable))
        if self.log is not None:
            self.log.append((pos, len(runnable) + (1 if timer else 0),
                             stay_index(runnable, current) if current is not None else -1, i))
        return i

    def pick_yield(self, runnable, current, timer: bool) -> int:
        """Like ``pick``; when exhausted, stay on ``current`` unless it has yielded more than
        ``YIELD_PATIENCE`` times in a row: then the next goroutine in id order."""
        if self.pos >= self.end:
            if current is None:
                return 0
            if current.gid != self._ygid:
                self._ygid, self._yields = current.gid, 0
            self._yields += 1
            if self._yields > YIELD_PATIENCE:
                self._ygid = 0
                return next_index(runnable, current)
            return stay_index(runnable, current)
        return self.pick(runnable, current, timer)

    def pick_index(self, n: int, what: str) -> int:
        """``data[pos] % n``; when exhausted, 0."""
        pos = self.pos
        if pos >= self.end:
            return 0
        self.pos = pos + 1
        return self.data[pos] % n

    @property
    def consumed(self) -> int:
        """Offset of the next unread byte (= bytes consumed when ``start`` was 0)."""
        return self.pos

    def preemption_edits(self) -> list[tuple[int, int]]:
        """``(offset, byte)`` rewrites that turn each logged preemption into "stay".
        Needs ``log=True`` (AssertionError otherwise)."""
        assert self.log is not None, "construct with log=True"
        return [(off, stay) for off, n, stay, chosen in self.log if stay >= 0 and chosen != stay]
