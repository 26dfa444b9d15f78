"""Starvation is minimized like preemptions (docs/timing.md): a reproducer that needs no
starvation past the 0.1 s realism bound never becomes one that does, one that needs it keeps
the least the search finds, and among equals the one that keeps fewer goroutines waiting.
The shrinker on pure test functions, then the minimizer on real harness crashes found in runs
that left the bound (a seed bug, checker, and HC-20)."""

from __future__ import annotations

import random

from fuzzfarm import collector
from fuzzfarm.collector.shrink import Probe, Shrinker
from fuzzfarm.harness.runone import outcome
from fuzzfarm.harness.signature import classify


def _shrink(test, data):
    s = Shrinker(test, data, "A", realism_s=0.1)
    s.run()
    return s


def test_a_realistic_reproducer_never_shrinks_into_an_unrealistic_one():
    # every input with a 7 fails; the short ones need no preemption but a goroutine starved
    # for 5 s, the long ones a preemption and no starvation: realism comes first
    def test(d):
        short = len(d) < 10
        return Probe("A" if 7 in d else None, starvation=5.0 if short else 0.0, preemptions=0 if short else 1)

    s = _shrink(test, bytes([7] + [9] * 19))
    assert s.best_probe.starvation == 0.0 and len(s.best) == 10


def test_an_unrealistic_reproducer_keeps_the_least_starvation():
    def test(d):
        short = len(d) < 10
        return Probe("A" if 7 in d else None, starvation=5.0 if short else 2.0, preemptions=0 if short else 1)

    s = _shrink(test, bytes([7] + [9] * 19))
    assert s.best_probe.starvation == 2.0 and len(s.best) == 10


def test_among_equal_starvation_fewer_goroutines_kept_waiting():
    # the short inputs keep a bystander waiting too (starved_total 2 s, not 1 s)
    def test(d):
        return Probe("A" if 7 in d else None, consumed=len(d), starvation=1.0,
                     starved_total=2.0 if len(d) < 3 else 1.0)

    s = _shrink(test, bytes([7, 9, 9]))
    assert s.best_probe.starved_total == 1.0 and len(s.best) == 3


def _crash(harness, suffix=b"", seed=1, want_over=True):
    rng = random.Random(seed)
    for _ in range(20_000):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(8, 200))) + suffix
        o = outcome(harness, "buggy", data)
        if o["failed"] and (o["starvation"] > 0.1) == want_over:
            return data, classify(o)
    raise AssertionError(f"{harness}: no crash past the bound in 20,000 inputs")


def test_a_seed_bug_found_in_a_run_past_the_bound_minimizes_to_no_starvation():
    data, o = _crash("checker")
    assert o["bound_lifted"] and o["starvation"] > 0.1
    r = collector.minimize("checker", "buggy", data, expected_signature=o["signature"], max_runs=3_000)
    m = outcome("checker", "buggy", r.data)
    assert m["failed"] and m["starvation"] == 0.0, m["starvation"]


def test_hc20_minimizes_to_the_resync_period_and_names_processor_run():
    data, o = _crash("examples", suffix=bytes([17]), seed=3)  # the last byte picks HC-20
    assert o["scenario"].startswith("HC-20")
    r = collector.minimize("examples", "buggy", data, expected_signature=o["signature"], max_runs=3_000)
    m = outcome("examples", "buggy", r.data)
    assert m["failed"] and m["starvation"] == 1.0 and m["bound_lifted"]
    assert [2, "processor.run"] in [r[:2] for r in m["starved_all"] if r[2] > 0.1], m["starved_all"]
