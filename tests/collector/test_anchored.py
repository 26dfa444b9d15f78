"""Anchored schedules: a run's context switches keyed by goroutine progress replay the run
exactly, and dropping one keeps the others where they were."""

import random

import pytest

from fuzzfarm import harness as H
from fuzzfarm.strategies import PCTStrategy, RandomStrategy
from fuzzfarm.strategies.anchored import AnchoredStrategy, AnchorRecorder


@pytest.mark.parametrize("name", ["checker", "cluster-builder", "examples"])
def test_recorded_switches_replay_the_run_exactly(name):
    mod = H.get(name).load()
    rng = random.Random(name)
    for seed in range(60):
        events = rng.randbytes(rng.choice((0, 3, 16, 64)))
        inner = RandomStrategy(seed) if seed % 2 else PCTStrategy(seed)
        recorder = AnchorRecorder(inner)
        with H.schedule_from(recorder):
            walk = mod.execute(events, "buggy")
        with H.schedule_from(AnchoredStrategy(recorder.switches)):
            again = mod.execute(events, "buggy")
        assert again.report.decisions == walk.report.decisions, (seed, recorder.switches)
        # only the non-default decisions are switches
        assert len(recorder.switches) <= len(walk.report.decisions)
        assert walk.report.preemptions <= len(recorder.switches)


def test_no_switches_is_the_no_preemption_schedule():
    mod = H.get("cluster-builder").load()
    with H.schedule_from(AnchoredStrategy([])):
        ex = mod.execute(bytes(range(40)), "buggy")
    assert ex.report.preemptions == 0


def test_a_dropped_switch_leaves_the_later_ones_anchored():
    """Take a walk with several preemptions, drop its first switch: every later switch whose
    goroutine reached the same point still happens (index-keyed replay loses them)."""
    mod = H.get("cluster-builder").load()
    for seed in range(200):
        recorder = AnchorRecorder(RandomStrategy(seed))
        with H.schedule_from(recorder):
            walk = mod.execute(bytes(range(1, 30)), "buggy")
        if walk.report.preemptions >= 4:
            break
    rest = recorder.switches[1:]
    check = AnchorRecorder(AnchoredStrategy(rest))
    with H.schedule_from(check):
        mod.execute(bytes(range(1, 30)), "buggy")
    kept = set(check.switches) & set(rest)
    assert len(kept) >= len(rest) // 2, (rest, check.switches)
