"""Turn any strategy's decisions into schedule bytes that replay them under ``BytesStrategy``.

The bytes strategy maps byte ``b`` to option ``b % n``; recording the chosen index ``i < n``
as byte ``i`` therefore reproduces the same choice. A schedule found by ``random`` or ``pct``
becomes an ordinary fuzz input: the farm buckets, minimizes and replays it like any other.
"""

from __future__ import annotations


class RecordingStrategy:
    """Wrap ``inner``; ``recorded`` holds one byte per decision (needs fewer than 256 options)."""

    def __init__(self, inner):
        """Wrap strategy ``inner``; ``recorded`` restarts at every ``begin``."""
        self.inner = inner
        self.recorded = bytearray()
        self._append = self.recorded.append  # bound once per run: one call per decision
        self.observer = getattr(inner, "observer", None)  # the runtime's step observer (dfs)

    def begin(self, rt) -> None:
        """Start a new recording, then the inner strategy's run."""
        self.recorded = bytearray()
        self._append = self.recorded.append
        self.inner.begin(rt)

    def pick(self, runnable, current, timer: bool) -> int:
        """The inner strategy's choice, recorded as one byte."""
        i = self.inner.pick(runnable, current, timer)
        self._append(i)
        return i

    def pick_yield(self, runnable, current, timer: bool) -> int:
        """The inner strategy's yield choice (its ``pick`` if it has none), recorded."""
        inner = getattr(self.inner, "pick_yield", None) or self.inner.pick
        i = inner(runnable, current, timer)
        self._append(i)
        return i

    def pick_index(self, n: int, what: str) -> int:
        """The inner strategy's data choice, recorded as one byte."""
        i = self.inner.pick_index(n, what)
        self._append(i)
        return i

    @property
    def consumed(self) -> int:
        """Decisions recorded so far (= bytes of the equivalent bytes input)."""
        return len(self.recorded)

    def preemption_edits(self) -> list:
        """Always empty (the farm minimizes the bytes reproducer instead)."""
        return []
