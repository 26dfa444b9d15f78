"""Schedule minimization by goroutine identity: the guided and preemption-bounded passes take
a random-walk interleaving of the prow seed bug down to the one or two preemptions the bug
needs, where byte rewrites alone stall (each rewrite shifts how later schedule bytes read)."""

import importlib
import random

import pytest

from fuzzfarm import harness as H
from fuzzfarm.collector import minimize
from fuzzfarm.collector.shrink import Shrinker
from fuzzfarm.harness.signature import classify
from fuzzfarm.harness.runone import outcome
from fuzzfarm.strategies import RandomStrategy
from fuzzfarm.strategies.guided import BoundedStrategy, GuidedStrategy

minimize_module = importlib.import_module("fuzzfarm.collector.minimize")  # the package exports the function


def _walk_until(mod, kind: str, top: str = "default_opts", tries: int = 3000):
    rng = random.Random(7)
    for i in range(tries):
        events = bytes(rng.randrange(256) for _ in range(64))
        with H.schedule_from(RandomStrategy(i)):
            ex = mod.execute(events, "buggy")
        f = ex.failure
        if f is not None and f.kind == kind and f.crash_state[:1] == [top] and ex.report.preemptions >= 4:
            return ex.as_bytes_input(events)
    pytest.fail(f"no {kind} at {top} with >= 4 preemptions in {tries} random walks")


def test_guided_strategy_follows_identity_and_refuses_one_preemption():
    mod = H.get("cluster-builder").load()
    data = _walk_until(mod, "concurrent map iteration and map write")
    base = mod.execute(data, "buggy")
    follow = GuidedStrategy(base.report.decisions)
    with H.schedule_from(follow):
        again = mod.execute(data, "buggy")
    assert again.report.decisions == base.report.decisions  # identity replay is exact
    assert len(follow.preemptions_at) == base.report.preemptions
    drop = GuidedStrategy(base.report.decisions, drop=follow.preemptions_at[-1])
    with H.schedule_from(drop):
        fewer = mod.execute(data, "buggy")
    assert fewer.report.decisions != base.report.decisions


def test_bounded_strategy_without_overrides_is_the_no_preemption_schedule():
    mod = H.get("cluster-builder").load()
    data = _walk_until(mod, "concurrent map iteration and map write")
    strategy = BoundedStrategy()
    with H.schedule_from(strategy):
        ex = mod.execute(data, "buggy")
    assert ex.report.preemptions == 0
    assert strategy.points, "decision points are listed for enumerating overrides"


def test_minimize_reaches_few_preemptions_on_the_prow_seed_bug():
    mod = H.get("cluster-builder").load()
    data = _walk_until(mod, "concurrent map iteration and map write")
    out = classify(outcome("cluster-builder", "buggy", data))
    assert out["kind"] == "concurrent map iteration and map write" and out["crash_state"][0] == "default_opts"
    m = minimize("cluster-builder", "buggy", data, expected_signature=out["signature"], budget_s=60)
    assert m.signature == out["signature"]
    assert m.preemptions_before >= 4
    # T3 needs one preemption: G1 inside its write, G2 takes an iteration step.
    assert m.preemptions_after <= 1, (m.preemptions_before, m.preemptions_after, m.stopped)


def test_minimize_takes_concurrent_map_writes_to_the_two_preemptions_t1_needs():
    """``concurrent map writes`` needs two preemptions (T1: G2 stops in the loop body after its
    iteration check, G3 stops inside its write): out of reach for bound 1, found by bound 2."""
    mod = H.get("cluster-builder").load()
    data = _walk_until(mod, "concurrent map writes")
    out = classify(outcome("cluster-builder", "buggy", data))
    m = minimize("cluster-builder", "buggy", data, expected_signature=out["signature"], budget_s=60)
    assert m.signature == out["signature"] and m.preemptions_before >= 4
    assert m.preemptions_after == 2, (m.preemptions_before, m.preemptions_after, m.stopped, m.runs)
    again = classify(outcome("cluster-builder", "buggy", m.data))
    assert again["signature"] == out["signature"] and again["preemptions"] == 2


def test_bounded_points_name_the_event_before_each_decision():
    mod = H.get("cluster-builder").load()
    data = _walk_until(mod, "concurrent map writes")
    strategy = BoundedStrategy()
    with H.schedule_from(strategy):
        mod.execute(data, "buggy", trace=True)
    events = {p[4] for p in strategy.points}
    assert {"map.write.enter", "map.write", "map.iter"} <= events
    with H.schedule_from(untraced := BoundedStrategy()):
        mod.execute(data, "buggy")
    assert {p[4] for p in untraced.points} == {None}


def test_bounded_runs_untraced_make_the_same_schedule_and_input():
    """Bound 2's pairs run untraced (``events=False``, each run cheaper): the trace only
    records, so a pair's bytes input and verdict are the traced run's."""
    mod = H.get("cluster-builder").load()
    data = _walk_until(mod, "concurrent map writes")
    bounded = minimize_module._bounded(mod, "buggy", 10.0)
    _, points, _ = bounded(data, {})
    at = [p for p in points if len(p[2]) > 1][:6]
    assert len(at) >= 2
    pairs = [{a[0]: next(g for g in a[2] if g != a[1]), b[0]: next(g for g in b[2] if g != b[1])}
             for a, b in zip(at, at[1:])]
    for overrides in [{}, *pairs]:
        traced, traced_points, traced_failed = bounded(data, overrides)
        untraced, untraced_points, untraced_failed = bounded(data, overrides, events=False)
        assert (untraced, untraced_failed) == (traced, traced_failed)
        assert [p[:4] for p in untraced_points] == [p[:4] for p in traced_points]
        assert {p[4] for p in untraced_points} == {None}


def test_bounded_run_signature_is_the_replays():
    """The bounded search refuses a candidate on the signature of its own run, without replaying
    its bytes input: that signature must be the one the prober gives the bytes input, whether
    the run failed with the bucket's bug or with another (here: the checker's hazard, whose
    bound-1 and bound-2 schedules mostly fail with the seed bug's signature)."""
    mod = H.get("checker").load()
    data = _walk_until(mod, "WaitGroup reused before previous Wait returned", top="Group.wait")
    bounded = minimize_module._bounded(mod, "buggy", 10.0)
    prober = minimize_module._prober(mod, "checker", "buggy", 10.0)
    _, points, _ = bounded(data, {})
    seen = set()
    running = {p[0]: p[1] for p in points}
    firsts = Shrinker._deviations(points, after=-1)[:12]  # the search's order: shared-state points first
    for at, choice in firsts:
        candidate, later, sig = bounded(data, {at: choice})
        assert sig == prober(candidate).signature
        seen.add(sig)
        back = [(at2, c2) for at2, c2 in Shrinker._deviations(later, after=at) if c2 == running[at]]
        for at2, choice2 in back[:4]:  # bound 2's first pairs: switch back to the interrupted goroutine
            candidate, _, sig = bounded(data, {at: choice, at2: choice2}, events=False)
            assert sig == prober(candidate).signature
            seen.add(sig)
    assert seen - {None}, "no candidate failed: the check compared nothing but non-failures"
