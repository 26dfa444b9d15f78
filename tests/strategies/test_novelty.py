"""Distinct schedules (fuzzfarm/strategies/novelty.py): the walk's tree never steers away from a
schedule that was not run, runs every schedule of a small program exactly once before it says
the scenario is exhausted, and the same seed gives the same schedules."""

from __future__ import annotations

import functools
import types

import pytest

from fuzzfarm import gosim
from fuzzfarm import harness as H
from fuzzfarm.strategies import make
from fuzzfarm.strategies.novelty import FreshSchedules, SeenSchedules


def _tiny_main(data_choice: int):
    """Main starts two senders and receives twice, on a buffered channel (scenario 0: 274
    schedules) or an unbuffered one (scenario 1: 682): each scenario has its own tree."""
    def main():
        ch = gosim.Chan(2 if data_choice == 0 else 0, name="ch")

        def sender(i):
            ch.send(i)

        gosim.go(sender, 1, name="a")
        gosim.go(sender, 2, name="b")
        ch.recv()
        ch.recv()
    return main


def _execute(data: bytes, variant: str = "buggy", **kw):
    # the last byte picks the scenario (2 or 3 workers); the rest is the schedule
    choice = data[-1] % 2 if data else 0
    return H.execute_scenario(_tiny_main(choice), data, 0, f"tiny {choice}",
                              schedule_end=max(0, len(data) - 1))


TINY = types.SimpleNamespace(execute=_execute)


class _Prefix:
    """Follow ``prefix``, then option 0: the reference enumeration of every schedule."""

    def __init__(self, prefix):
        self.prefix, self.i, self.opts = prefix, 0, []

    def begin(self, rt):
        self.i, self.opts = 0, []

    def _c(self, m):
        c = self.prefix[self.i] if self.i < len(self.prefix) else 0
        self.i += 1
        self.opts.append(m)
        return c

    def pick(self, runnable, cur, timer):
        return self._c(len(runnable) + (1 if timer else 0))

    def pick_index(self, n, what):
        return self._c(n)


@functools.lru_cache(maxsize=None)
def _all_schedules(data: bytes) -> frozenset:
    leaves, stack = set(), [[]]
    while stack:
        p = stack.pop()
        s = _Prefix(p)
        with H.schedule_from(s):
            TINY.execute(data)
        full = list(p) + [0] * (len(s.opts) - len(p))
        leaves.add(tuple(full))
        for j in range(len(p), len(s.opts)):
            stack.extend(full[:j] + [c] for c in range(1, s.opts[j]))
        assert len(leaves) < 2000, "the tiny program is meant to be small"
    return frozenset(leaves)


def _walk_until_exhausted(strategy: str, seed: int, data: bytes, cap: int) -> list[tuple]:
    fresh = FreshSchedules(make(strategy, seed=seed), seed)
    runs = []
    while not fresh.scenario_exhausted() and len(runs) < cap:
        with H.schedule_from(fresh):
            ex = TINY.execute(data)
        assert fresh.finish() is True, "a run before exhaustion repeated a schedule"
        runs.append(tuple(ex.schedule.recorded))
    return runs


@pytest.mark.parametrize("strategy,data", [("random", b"\x00"), ("pct", b"\x00"), ("mix", b"\x00"),
                                           ("pct", b"\x01")])
def test_every_schedule_runs_exactly_once_before_the_scenario_is_exhausted(strategy, data):
    every = _all_schedules(data)
    runs = _walk_until_exhausted(strategy, 7, data, cap=10 * len(every))
    assert len(runs) == len(set(runs))  # no schedule twice
    assert set(runs) == every           # and none left out: nothing not run was called run
    assert len(every) > 20              # a tree worth steering in


def test_the_tree_is_per_scenario_and_the_count_is_exact():
    """Scenario 0 run past its 274 schedules, interleaved with 100 runs of scenario 1: the
    exact count is 274 + 100, and only scenario 0 says it is exhausted."""
    n0 = len(_all_schedules(b"\x00"))
    fresh = FreshSchedules(make("random", seed=3), 3)
    seen = SeenSchedules()
    distinct = 0
    for i in range(n0 + 40 + 100):
        data = b"\x01" if i % 4 == 3 and i < 400 else b"\x00"
        with H.schedule_from(fresh):
            ex = TINY.execute(data)
        fresh.finish()
        distinct += seen.add(data[ex.schedule_end:], bytes(ex.schedule.recorded))
    ones = sum(1 for i in range(n0 + 140) if i % 4 == 3 and i < 400)
    assert ones < len(_all_schedules(b"\x01"))
    assert distinct == n0 + ones
    assert fresh.exhausted_scenarios == 1


def test_the_same_seed_gives_the_same_schedules_and_another_seed_others():
    a = _walk_until_exhausted("pct", 11, b"\x00", cap=40)
    b = _walk_until_exhausted("pct", 11, b"\x00", cap=40)
    c = _walk_until_exhausted("pct", 12, b"\x00", cap=40)
    assert a == b and a != c


def test_without_the_tree_pct_repeats_schedules():
    """What the tree is for: plain PCT on the tiny program reruns schedules."""
    s = make("pct", seed=5)
    runs = []
    for _ in range(60):
        with H.schedule_from(s):
            ex = TINY.execute(b"\x00")
        runs.append(bytes(ex.schedule.recorded))
    assert len(set(runs)) < len(runs)
