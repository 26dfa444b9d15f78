"""Fix evidence from the exhaustive search: "proven" only for an exhausted search."""

import pytest

from fuzzfarm.collector.prove import prove_fixed, proof_line
from fuzzfarm.harness import Target

TOYS = Target("dfs-toys", "dfs_toys")


@pytest.mark.parametrize("reduce", [False, True])
def test_a_real_fix_is_proven_with_its_bound_and_scenario(reduce, monkeypatch):
    monkeypatch.delenv("FUZZFARM_MAX_STARVATION_S", raising=False)
    r = prove_fixed(TOYS, "guarded", b"\x00", bound=2, budget=60, reduce=reduce)
    assert r["reduction"] is reduce
    assert r["exhausted"] and r["failure"] is None
    from fuzzfarm.engine.explore import assumption  # stated when the reduction ran (issue 29)
    assert r["line"] == (f"proven up to 2 preemptions for this scenario ({r['schedules']} schedules){assumption(reduce)}; "
                         f"starvation bound label (0.1 s realism bound, unbounded runs searched too)")
    assert r["starvation_bound"] == "label"


def test_a_proof_states_the_starvation_setting_it_ran_under(monkeypatch):
    from fuzzfarm.harness.target import resolve
    monkeypatch.delenv("FUZZFARM_MAX_STARVATION_S", raising=False)
    r = prove_fixed(resolve(TOYS, "none"), "guarded", b"\x00", bound=1, budget=60)
    assert r["starvation_bound"] == "none" and r["line"].endswith("; starvation bound none"), r["line"]
    r = prove_fixed(resolve(TOYS, 0.25), "guarded", b"\x00", bound=1, budget=60)
    assert r["starvation_bound"] == "0.25" and r["line"].endswith("; starvation bound 0.25 s"), r["line"]


def test_a_fix_that_only_narrows_the_window_is_not_proven():
    r = prove_fixed(TOYS, "narrowed", b"\x00", bound=2, budget=60)
    assert r["failure"]["kind"] == "concurrent map writes"
    assert r["line"].startswith("NOT fixed for this scenario") and "proven" not in r["line"]


def test_a_budget_too_small_says_not_exhausted():
    r = prove_fixed(TOYS, "guarded", b"\x02", bound=2, budget=0.5)
    assert not r["exhausted"]
    assert r["line"].startswith(f"no counterexample in {r['schedules']} schedules (not exhausted")
    assert "proven up to 2" not in r["line"]


def test_proof_line_words():
    assert proof_line({"exhausted": False, "schedules": 5, "bound": 2, "proven_bound": 0, "proven_schedules": 1}) == \
        "no counterexample in 5 schedules (not exhausted at 2 preemptions); proven only without preemptions: " \
        "all 1 schedules with no preemption pass"
    assert proof_line({"exhausted": False, "schedules": 9, "bound": 2, "proven_bound": 1, "proven_schedules": 4}) == \
        "no counterexample in 9 schedules (not exhausted at 2 preemptions); proven up to 1 preemption(s) for this " \
        "scenario (4 schedules)"
    assert proof_line({"error": "boom"}) == "no proof: boom"


class _Ticks:
    """A clock that advances one tick per reading: the search's budget in readings, not seconds."""

    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        self.t += 1.0
        return self.t


def test_a_search_that_cannot_finish_in_its_budget_says_so_early():
    """engine/explore.py give_up_early: once the subtrees still waiting (each at least one run)
    cannot fit in what is left of the budget at the mean cost so far, the search stops and says
    why; without it, the same search spends its whole budget. A deterministic clock (one tick per
    reading), so the runs compare exactly."""
    from fuzzfarm.engine.explore import CANNOT_FINISH, explore
    mod = TOYS.load()
    full = explore(mod, "guarded", b"\x02", bound=2, reduce=False, max_time=2000, clock=_Ticks())
    early = explore(mod, "guarded", b"\x02", bound=2, reduce=False, max_time=2000, clock=_Ticks(), give_up_early=True)
    assert not full.exhausted and full.stopped_by == "time budget"
    assert not early.exhausted and early.stopped_by == CANNOT_FINISH and early.failure is None
    assert early.runs < full.runs / 2, (early.runs, full.runs)
    assert sum(early.pending.values()) > 0
    small = explore(mod, "guarded", b"\x00", bound=2, reduce=False, max_time=100000, clock=_Ticks(), give_up_early=True)
    assert small.exhausted and small.stopped_by is None  # one that fits is searched to the end
    line = proof_line({**early.to_json(), "reproducer": None})
    assert "stopped early" in line and "could not finish in its budget" in line and "proven up to" not in line.split(";")[0]
