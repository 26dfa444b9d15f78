"""The ``mix`` walk: a portfolio of walk strategies in one process, reweighted by what finds
new failures (docs/STRATEGIES.md#mix).

Arms: ``random``, ``pct:3``, ``pct:2``, ``pct:5`` (PCT with that depth). The first runs try
each arm once, in that order (unless the campaign's prior already has runs of it); ``random``
first because its first run is as good as any later one, while a PCT arm's first run draws its
change points over a guessed run length (``k_hint``) and learns the real one from that run
(strategies/pct.py): before any find the mix knows nothing else to order the arms by. Then each run
goes to one arm, chosen by Thompson sampling on a Gamma-Poisson model: an arm finds new failure
signatures at an unknown rate per scheduling decision; with ``f`` finds over ``c`` decisions
(plus the campaign's prior counts, ``prior``) its rate's posterior is Gamma(1 + f, 1 + c /
COST_UNIT); each run draws one rate per arm and runs the arm with the largest draw. Cost is
counted in scheduling decisions, not seconds, so the choice never depends on the wall clock:
the same seed and the same rewards give the same arms, runs and schedules in every process.

Each arm keeps its own strategy object (its own seeded RNG, living across runs as in a
single-strategy walk), so choosing an arm never perturbs another arm's stream.
"""

from __future__ import annotations

import random

# The first round's order: the arm with no parameter to learn first (see above).
WALK_ARMS = ("random", "pct:3", "pct:2", "pct:5")
COST_UNIT = 10_000  # decisions per unit of cost in the posterior (one unit ~ 20-100 runs)


def make_arm(arm: str, seed: int):
    """The strategy of one arm name: ``random`` or ``pct:D``. Raises ValueError."""
    from .pct import PCTStrategy
    from .random_strategy import RandomStrategy

    if arm == "random":
        return RandomStrategy(seed)
    if arm == "pct":
        return PCTStrategy(seed)
    if arm.startswith("pct:"):
        try:
            depth = int(arm[4:])
        except ValueError:
            depth = 0
        if depth >= 1:
            return PCTStrategy(seed, depth=depth)
    raise ValueError(f"unknown walk arm {arm!r}: choose random, pct or pct:DEPTH")


class MixStrategy:
    """``seed`` fixes everything; ``prior``: {arm: {"finds": f, "cost": decisions}} from
    earlier slices of the campaign (farm/portfolio.py)."""

    def __init__(self, seed: int, arms=WALK_ARMS, prior: dict | None = None):
        self.rng = random.Random(f"mix:{seed}")
        self.arms = tuple(arms)
        self.subs = {a: make_arm(a, seed * 31 + i) for i, a in enumerate(self.arms)}
        self.stats = {a: {"runs": 0, "finds": 0, "cost": 0} for a in self.arms}
        self.prior = {a: {"finds": float((prior or {}).get(a, {}).get("finds", 0)),
                          "cost": float((prior or {}).get(a, {}).get("cost", 0))} for a in self.arms}
        self.current = self.arms[0]
        self.sub = self.subs[self.current]

    # -- the bandit ----------------------------------------------------------------------------
    def _posterior(self, arm: str) -> tuple[float, float]:
        s, p = self.stats[arm], self.prior[arm]
        return 1.0 + s["finds"] + p["finds"], 1.0 + (s["cost"] + p["cost"]) / COST_UNIT

    def choose(self) -> str:
        for a in self.arms:  # every arm runs once before any draw (a campaign's prior counts as run)
            if self.stats[a]["runs"] == 0 and self.prior[a]["cost"] == 0:
                return a
        best, best_v = self.arms[0], -1.0
        for a in self.arms:  # a fixed order: the draws are the same in every process
            shape, rate = self._posterior(a)
            v = self.rng.gammavariate(shape, 1.0 / rate)
            if v > best_v:
                best, best_v = a, v
        return best

    def reward(self, finds: int, cost: int) -> None:
        """The run that just ended (on ``self.current``) found ``finds`` new failure
        signatures and took ``cost`` decisions."""
        s = self.stats[self.current]
        s["runs"] += 1
        s["finds"] += int(finds)
        s["cost"] += int(cost)

    def weights(self) -> dict[str, float]:
        """Each arm's share of the posterior mean rates (what the mix favours now)."""
        means = {a: sh / rt for a, (sh, rt) in ((a, self._posterior(a)) for a in self.arms)}
        total = sum(means.values()) or 1.0
        return {a: round(m / total, 4) for a, m in means.items()}

    # -- the strategy interface -----------------------------------------------------------------
    def begin(self, rt) -> None:
        self.current = self.choose()
        self.sub = self.subs[self.current]
        # the arm's own picks, bound for this run: a decision goes straight to the arm (the
        # arms never swap their picks mid-run, as BytesStrategy does)
        self.pick = self.sub.pick
        self.pick_yield = getattr(self.sub, "pick_yield", None) or self.sub.pick
        self.pick_index = self.sub.pick_index
        self.sub.begin(rt)

    def pick(self, runnable, current, timer: bool) -> int:
        return self.sub.pick(runnable, current, timer)

    def pick_yield(self, runnable, current, timer: bool) -> int:
        inner = getattr(self.sub, "pick_yield", None) or self.sub.pick
        return inner(runnable, current, timer)

    def pick_index(self, n: int, what: str) -> int:
        return self.sub.pick_index(n, what)

    @property
    def step(self) -> int:
        return int(getattr(self.sub, "step", 0) or 0)

    @property
    def depth(self):
        return getattr(self.sub, "depth", None)
