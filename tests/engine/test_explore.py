"""The exhaustive search (``dfs``): what it calls proven must be proven.

Each verdict is tested against a scenario built to make it false: a race the reduction must
not hide, a "fix" that only narrows the window, a budget too small to finish."""

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
for p in (HERE, ROOT):
    if p not in sys.path:
        sys.path.insert(0, p)

from fuzzfarm.engine.explore import explore  # noqa: E402
from fuzzfarm.harness.runone import outcome_of_module  # noqa: E402

import dfs_toys  # noqa: E402


def _n(n: int) -> bytes:
    return bytes([n - 2])


def test_independent_goroutines_are_one_schedule_class_not_n_factorial():
    r = explore(dfs_toys, "independent", _n(3), bound=2)
    assert r.exhausted and r.failure is None and r.schedules == 1
    assert "proven up to 2 preemptions" in r.verdict() and "(1 schedules)" in r.verdict()
    plain = explore(dfs_toys, "independent", _n(3), bound=2, reduce=False)
    assert plain.exhausted and plain.schedules > 6  # 3! orders and many more preemption placements


@pytest.mark.parametrize("variant", ["racing", "narrowed"])
@pytest.mark.parametrize("n", [2, 3])
def test_a_race_on_one_object_is_caught_with_the_reduction(variant, n):
    r = explore(dfs_toys, variant, _n(n), bound=2)
    assert r.failure is not None and r.failure["kind"] == "concurrent map writes"
    assert not r.proven and "proven" not in r.verdict()
    assert r.failure["preemptions"] == 1
    replay = outcome_of_module(dfs_toys, "dfs-toys", variant, r.reproducer)
    assert replay["failed"] and replay["kind"] == "concurrent map writes"


def test_the_first_counterexample_needs_the_fewest_preemptions():
    # no schedule with 0 preemptions fails (the plain search exhausts bound 0 clean) ...
    zero = explore(dfs_toys, "racing", _n(2), bound=0, reduce=False)
    assert zero.exhausted and zero.failure is None
    # ... so the one found with bound 2 must spend exactly 1
    assert explore(dfs_toys, "racing", _n(2), bound=2).failure["preemptions"] == 1


def test_reduced_and_plain_search_agree_on_every_toy():
    from benchmarks.toys import late_cancel, shared_map

    for mod, data, variant in ((dfs_toys, _n(2), "guarded"), (late_cancel, b"", "fixed"),
                               (late_cancel, b"", "buggy"), (shared_map, b"", "buggy"), (shared_map, b"", "fixed")):
        red = explore(mod, variant, data, bound=2)
        plain = explore(mod, variant, data, bound=2, reduce=False)
        assert red.exhausted == plain.exhausted or red.failure is not None
        assert (red.failure is None) == (plain.failure is None), (mod.NAME, variant)
        if red.failure is not None:
            assert red.failure["preemptions"] == plain.failure["preemptions"]
            assert red.failure["kind"] == plain.failure["kind"]
        else:
            assert red.schedules <= plain.schedules


def test_a_budget_that_runs_out_is_never_called_proven():
    r = explore(dfs_toys, "guarded", _n(3), bound=2, max_schedules=20)
    assert not r.exhausted and not r.proven and r.failure is None
    assert r.stopped_by == "schedule budget" and r.runs == 20 and sum(r.pending.values()) > 0
    assert "not exhausted" in r.verdict() and "proven up to 2" not in r.verdict()
    assert r.proven_bound < 2  # only the levels it finished may be called proven
    d = r.to_json()
    assert d["proven"] is False and d["exhausted"] is False


def test_examples_buggy_case_found_and_fixed_case_proven_at_bound_2(monkeypatch):
    monkeypatch.setenv("FUZZFARM_EXAMPLE", "hc03")
    import importlib

    import harnesses.examples_race as ex
    ex = importlib.reload(ex)
    try:
        bug = explore(ex, "buggy", b"", bound=2)
        assert bug.failure is not None and bug.failure["kind"] == "deadlock"
        fix = explore(ex, "fixed", b"", bound=2)
        assert fix.exhausted and fix.failure is None and fix.schedules > 1
        assert fix.verdict().startswith("proven up to 2 preemptions for this scenario")
    finally:
        monkeypatch.delenv("FUZZFARM_EXAMPLE")
        importlib.reload(ex)
