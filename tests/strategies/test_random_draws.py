"""RandomStrategy's inlined draw (fuzzfarm/strategies/random_strategy.py) is ``randrange``'s,
draw for draw: the walks' schedules (and their recorded reproducers) stay what they were."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzfarm.strategies import RandomStrategy


def _reference(seed, asks, timer_weight):
    rng = random.Random(seed)
    out = []
    for n, timer in asks:
        if timer and rng.random() * (n + timer_weight) >= n:
            out.append(n)
        else:
            out.append(rng.randrange(n))
    return out


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**64), timer_weight=st.sampled_from([1.0, 0.5, 3.0]),
       asks=st.lists(st.tuples(st.integers(1, 300), st.booleans()), max_size=200))
def test_pick_draws_as_randrange(seed, asks, timer_weight):
    s = RandomStrategy(seed, timer_weight=timer_weight)
    got = [s.pick([None] * n, None, timer) for n, timer in asks]
    assert got == _reference(seed, asks, timer_weight)
    assert s.pick_index(7, "x") == _tail_index(seed, asks, timer_weight)


def _tail_index(seed, asks, timer_weight):
    rng = random.Random(seed)
    for n, timer in asks:
        if timer and rng.random() * (n + timer_weight) >= n:
            continue
        rng.randrange(n)
    return rng.randrange(7)
