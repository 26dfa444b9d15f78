"""PCT: probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi, Nagarakatte,
"A Randomized Scheduler with Probabilistic Guarantees of Finding Bugs", ASPLOS 2010).

Each goroutine gets a distinct random priority when first seen (all above ``depth``); the
highest-priority runnable goroutine always runs. ``depth - 1`` change points are drawn
uniformly over the ``k`` decision steps of a run; at the i-th one the running goroutine's
priority drops to ``depth - 2 - i`` (below every initial priority). For a bug of depth d in a
program with n goroutines and k steps, one run finds it with probability at least
1 / (n * k^(d-1)).

As in Shuttle's implementation, only steps with a real choice count toward k, and k is learned:
it starts at ``k_hint`` and becomes the largest step count seen so far. A goroutine that yields
(``gosched``) drops below every other priority, so spin loops cannot starve the goroutine they
wait for (Shuttle does the same). Timers fire early with probability ``timer_p`` per decision
(0 keeps time moving only when everything blocks).

Invariants: initial priorities are in (depth, depth + 1); the change points' nominal
priorities are depth-2, depth-3, ..., 0 (``change_points``), all distinct and below every
initial one. Because a yield may already have pushed some goroutine lower, both a change
point and a yield assign the next value of one decreasing sequence below everything
assigned so far: a change point always moves the running goroutine below every other,
as in the paper.
"""

from __future__ import annotations

import random


class PCTStrategy:
    """PCT with seed ``seed`` (one ``random.Random`` for the whole life of the object: run i is
    the same in every process). Raises ValueError for ``depth < 1``."""

    def __init__(self, seed: int, depth: int = 3, k_hint: int = 50, timer_p: float = 0.05):
        if depth < 1:
            raise ValueError("PCT depth must be >= 1")
        self.rng = random.Random(seed)
        self.depth = depth
        self.k = max(1, k_hint)
        self.timer_p = timer_p
        self.prio: dict[int, float] = {}
        self.change_points: dict[int, int] = {}
        self.step = 0
        self.low = 0.0
        self.rt = None

    def begin(self, rt) -> None:
        """Start a run: learn k from the previous run, draw new change points."""
        if self.step > self.k:
            self.k = self.step
        self.step = 0
        self.prio = {}
        self.low = float(self.depth - 1)  # the first change point / yield gets depth - 2
        self.rt = rt
        points = self.rng.sample(range(1, self.k + 1), min(self.depth - 1, self.k))
        self.change_points = {p: self.depth - 2 - i for i, p in enumerate(sorted(points))}
        assert all(0 <= v < self.depth for v in self.change_points.values())

    def _priority(self, g) -> float:
        p = self.prio.get(g.gid)
        if p is None:
            p = self.prio[g.gid] = self.depth + self.rng.random()
        return p

    def _choose(self, runnable, current, timer: bool) -> int:
        self.step += 1
        if timer and self.rng.random() < self.timer_p:
            return len(runnable)
        if self.step in self.change_points:
            running = current if current is not None else getattr(self.rt, "cur", None)
            if running is not None:
                self._lowest(running)
        best, best_p = 0, -float("inf")
        prio = self.prio
        for i, g in enumerate(runnable):
            p = prio.get(g.gid)
            if p is None:  # ``_priority`` inline (it is asked per runnable goroutine per decision)
                p = prio[g.gid] = self.depth + self.rng.random()
            if p > best_p:
                best, best_p = i, p
        return best

    # The highest-priority runnable goroutine (or, with probability ``timer_p``, the timer).
    pick = _choose

    def _lowest(self, g) -> None:
        """Give ``g`` a priority below every priority assigned so far."""
        self.low -= 1.0
        self.prio[g.gid] = self.low

    def pick_yield(self, runnable, current, timer: bool) -> int:
        """At ``gosched``: the yielding goroutine first drops below every priority."""
        if current is not None:
            for g in runnable:
                self._priority(g)
            self._lowest(current)
        return self._choose(runnable, current, timer)

    def pick_index(self, n: int, what: str) -> int:
        """Uniform in [0, n)."""
        return self.rng.randrange(n)
