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

    ``pick(runnable, current, timer)`` -> ``data[pos] % (len(runnable) + timer)``, or once
    exhausted the index of ``current`` (the lowest id if it blocked); ``pick_yield`` the same,
    with the yield-patience rule once exhausted; ``pick_index(n, what)`` -> ``data[pos] % n``,
    or 0 once exhausted. ``consumed`` (= ``pos``) is the offset of the next unread byte.
    Raises nothing: every byte string, including the empty one, is a valid schedule.

    The three picks are per-instance attributes that switch to the "exhausted" versions when
    the bytes run out, so the hot path has no branch at all (under atheris every basic block
    and comparison is a traced call).
    """

    __slots__ = ("data", "start", "end", "log", "_it", "_next", "_ygid", "_yields",
                 "pick", "pick_yield", "pick_index")

    def __new__(cls, data: bytes = b"", start: int = 0, end: int | None = None, log: bool = False):
        # With log=True the instance is a _LoggingBytesStrategy, so the plain picks carry no
        # "is logging on?" branch.
        if log and cls is BytesStrategy:
            cls = _LoggingBytesStrategy
        return object.__new__(cls)

    def __init__(self, data: bytes, start: int = 0, end: int | None = None, log: bool = False):
        self.data = data
        self.start = start
        self.end = len(data) if end is None else min(end, len(data))
        self.log: list[tuple[int, int, int, int]] | None = [] if log else None
        self._it = iter(data[start:self.end]) if start < self.end else iter(())
        self._next = self._it.__next__
        self._ygid = 0
        self._yields = 0
        self.pick = self._pick_byte
        self.pick_yield = self._pick_yield_byte
        self.pick_index = self._pick_index_byte

    def byte_stream(self):
        """The runtime's fast path: the ``__next__`` of the unread bytes. While it lasts, a
        decision over n options is ``next() % n``, exactly what ``pick``/``pick_yield`` return;
        once it raises StopIteration the runtime asks ``pick``/``pick_yield`` again (the
        exhausted default)."""
        return self._next

    @property
    def pos(self) -> int:
        """Offset in ``data`` of the next unread byte."""
        return self.end - self._it.__length_hint__() if self.start < self.end else self.start

    def begin(self, rt) -> None:
        """Nothing to reset: a BytesStrategy drives one run."""

    def _exhausted(self) -> None:
        self.pick = self._pick_stay
        self.pick_yield = self._pick_yield_stay
        self.pick_index = self._pick_index_zero

    def _pick_byte(self, runnable, current, timer: bool) -> int:
        try:
            return self._next() % (len(runnable) + timer)
        except StopIteration:
            self._exhausted()
            return self._pick_stay(runnable, current, timer)

    def _pick_yield_byte(self, runnable, current, timer: bool) -> int:
        try:
            return self._next() % (len(runnable) + timer)
        except StopIteration:
            self._exhausted()
            return self._pick_yield_stay(runnable, current, timer)

    def _pick_index_byte(self, n: int, what: str) -> int:
        try:
            return self._next() % n
        except StopIteration:
            self._exhausted()
            return 0

    def _pick_stay(self, runnable, current, timer: bool) -> int:
        if current is None or current.gid != self._ygid:
            self._ygid = 0
        return stay_index(runnable, current)

    def _pick_yield_stay(self, runnable, current, timer: bool) -> int:
        if current is None:
            return 0
        if current.gid != self._ygid:
            self._ygid, self._yields = current.gid, 0
        self._yields += 1
        if self._yields > YIELD_PATIENCE:
            self._ygid = 0
            return next_index(runnable, current)
        return stay_index(runnable, current)

    @staticmethod
    def _pick_index_zero(n: int, what: str) -> int:
        return 0

    @property
    def consumed(self) -> int:
        """Offset of the next unread byte (= bytes consumed when ``start`` was 0)."""
        return self.pos

    def preemption_edits(self) -> list[tuple[int, int]]:
        """``(offset, byte)`` rewrites that turn each logged preemption into "stay".
        Needs ``log=True`` (AssertionError otherwise)."""
        assert self.log is not None, "construct with log=True"
        return [(off, stay) for off, n, stay, chosen in self.log if stay >= 0 and chosen != stay]


class _LoggingBytesStrategy(BytesStrategy):
    """``BytesStrategy(..., log=True)``: logs ``(offset, options, stay, chosen)`` per consumed
    goroutine-decision byte."""

    __slots__ = ()

    def __init__(self, data: bytes, start: int = 0, end: int | None = None, log: bool = True):
        super().__init__(data, start, end, log=True)
        plain_pick, plain_yield = self.pick, self.pick_yield

        def pick(runnable, current, timer):
            return self._logged(plain_pick, runnable, current, timer)

        def pick_yield(runnable, current, timer):
            return self._logged(plain_yield, runnable, current, timer)

        self.pick, self.pick_yield = pick, pick_yield

    byte_stream = None  # every consumed byte must go through the logging picks

    def _exhausted(self) -> None:
        self.pick_index = self._pick_index_zero  # the logging wrappers stay; they see no new bytes

    def _logged(self, inner, runnable, current, timer: bool) -> int:
        before = self.pos
        i = inner(runnable, current, timer)
        if self.pos != before:
            self.log.append((before, len(runnable) + timer,
                             stay_index(runnable, current) if current is not None else -1, i))
        return i
