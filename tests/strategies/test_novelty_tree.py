"""The distinct-schedule tree with path compression (fuzzfarm/strategies/novelty.py) answers as
the one-node-per-decision tree it replaced (tests/strategies/novelty_reference.py): the same
choice at every decision (steered or not), the same finish verdict, the same counters, on
random programs (a decision tree given by a hash of the prefix, sometimes nondeterministic)
driven by random inner choices over several scenarios."""

from __future__ import annotations

import hashlib
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzfarm.strategies.novelty import FreshSchedules

from novelty_reference import ReferenceFreshSchedules


class _Stream:
    """Inner strategy: the next value of a fixed stream, modulo the options."""

    def __init__(self, values):
        self.values, self.i = values, 0

    def begin(self, rt):
        pass

    def pick_index(self, n, what):
        v = self.values[self.i % len(self.values)]
        self.i += 1
        return v % n

    def pick(self, runnable, current, timer):
        return self.pick_index(len(runnable) + (1 if timer else 0), "pick")


def _options(prog: int, key: int, prefix: tuple, run: int, flaky: bool, depth: int = 2):
    """The program: options of the next decision after ``prefix`` (None: the run ends), runs of
    ``depth`` to ``depth + 8`` decisions (some end earlier). ``flaky``: every 7th run sees other
    option counts (a nondeterministic program)."""
    salt = run % 7 == 0 if flaky else False
    h = hashlib.blake2b(repr((prog, key, prefix, salt)).encode(), digest_size=2).digest()
    if len(prefix) >= depth + h[0] % 9 or h[1] % 11 == 0 and len(prefix) > depth // 2:
        return None
    return 2 + h[1] % 3


def _drive(tree, prog, scenarios, runs, values, flaky, depth=2):
    out = []
    for r in range(runs):
        key = scenarios[r % len(scenarios)]
        tree.scenario(bytes([key]))
        tree.begin(None)
        prefix = ()
        while (m := _options(prog, key, prefix, r, flaky, depth)) is not None:
            # the three ways a decision comes (pick has inline fast paths of its own)
            kind = (len(prefix) + r) % 3
            if kind == 0:
                c = tree.pick_index(m, "x")
            elif kind == 1:
                c = tree.pick([None] * m, None, False)
            else:
                c = tree.pick([None] * (m - 1), None, True)
            prefix += (c,)
        out.append((prefix, tree.finish(), tree.scenario_exhausted()))
    return out, (tree.steered, tree.mismatches, tree.untracked, tree.exhausted_scenarios)


@settings(max_examples=150, deadline=None)
@given(prog=st.integers(0, 2**32), seed=st.integers(0, 2**16),
       scenarios=st.lists(st.integers(0, 5), min_size=1, max_size=4),
       runs=st.integers(1, 300), values=st.lists(st.integers(0, 255), min_size=1, max_size=64),
       flaky=st.booleans(), depth=st.sampled_from([1, 2, 6, 30]))
def test_compressed_tree_answers_as_the_reference(prog, seed, scenarios, runs, values, flaky, depth):
    new = FreshSchedules(_Stream(values), seed)
    ref = ReferenceFreshSchedules(_Stream(values), seed)
    assert (_drive(new, prog, scenarios, runs, values, flaky, depth)
            == _drive(ref, prog, scenarios, runs, values, flaky, depth))


def test_the_tails_keep_far_fewer_nodes_until_a_scenario_fills_up():
    """The point of the tails: before exhaustion, far fewer node objects than decisions (the
    same answers all along); once a scenario is exhausted, every node is there."""
    vals = list(random.Random(5).randbytes(997))  # a random walk: runs part early
    new, ref = FreshSchedules(_Stream(vals), 1), ReferenceFreshSchedules(_Stream(vals), 1)
    assert _drive(new, 99, [0], 50, vals, False, 30) == _drive(ref, 99, [0], 50, vals, False, 30)
    assert not new.scenario_exhausted()
    assert 3 * new.nodes < ref.nodes
    new, ref = FreshSchedules(_Stream(vals), 1), ReferenceFreshSchedules(_Stream(vals), 1)
    a, b = _drive(new, 99, [0], 400, vals, False), _drive(ref, 99, [0], 400, vals, False)
    assert a == b and new.scenario_exhausted()
    assert new.nodes == ref.nodes
