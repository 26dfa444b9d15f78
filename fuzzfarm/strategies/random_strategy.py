"""Uniform random walk over the options at each decision, from a seeded ``random.Random``."""

from __future__ import annotations

import random


class RandomStrategy:
    """``seed`` fixes the whole sequence across runs: run i of a strategy object is the same
    in every process. ``timer_weight`` scales the chance of firing a timer early (1 = as
    likely as any single goroutine)."""

    def __init__(self, seed: int, timer_weight: float = 1.0):
        self.rng = random.Random(seed)
        self.timer_weight = timer_weight
        self._bits = self.rng.getrandbits
        self._random = self.rng.random

    def begin(self, rt) -> None:
        """Nothing to reset: the random stream continues across runs."""

    def pick(self, runnable, current, timer: bool) -> int:
        """Uniform over the runnable goroutines, plus the timer with weight ``timer_weight``."""
        n = len(runnable)
        if timer and self._random() * (n + self.timer_weight) >= n:
            return n
        # ``self.rng.randrange(n)`` inlined (it is one call per decision): CPython 3.11's
        # randrange(n) is _randbelow_with_getrandbits(n), these very draws (tested equal).
        k = n.bit_length()
        r = self._bits(k)
        while r >= n:
            r = self._bits(k)
        return r

    def pick_index(self, n: int, what: str) -> int:
        """Uniform in [0, n)."""
        return self.rng.randrange(n)
