"""Fix evidence beyond one schedule: a bounded exhaustive search of the reproducer's scenario
on the fixed variant (``fuzzfarm.engine.explore``), in a fresh process (``fuzzfarm.harness.child``),
within a budget; the child answers ``ExploreResult.to_json`` without the reproducer bytes. The fix
check's replay says the reproducer's own schedule no longer fails; this says what else was
searched: ``proven up to K preemptions for this scenario (N schedules)`` only when the search
was exhausted, else ``no counterexample in N schedules (not exhausted)``, or the
counterexample's kind when a schedule of the scenario still fails on the fixed variant.
"""

from __future__ import annotations

import os

from fuzzfarm.harness import child
from fuzzfarm.harness.target import resolve
from fuzzfarm import settings

BUDGET_ENV = "FUZZFARM_PROVE_BUDGET_S"
# The fix evidence searches the plain bounded tree unless FUZZFARM_PROVE_REDUCTION=1: the plain
# search rests on no assumption about shared Python state (docs/EXPLORE.md), and on the seed
# harnesses, whose steps mostly touch "everything" (select, cancel, sleep), the reduction finds
# no equivalent schedules while its fingerprints halve the runs per second (checker: 36 = 36
# schedules at bound 0; 869 vs 1,699 runs in 20 s).
REDUCTION_ENV = "FUZZFARM_PROVE_REDUCTION"
# FUZZFARM_PROVE_GIVE_UP_EARLY=0: a search that cannot be exhausted in its budget still spends all
# of it (the default stops it once the subtrees left cannot fit: engine/explore.py give_up_early)
GIVE_UP_EARLY_ENV = "FUZZFARM_PROVE_GIVE_UP_EARLY"
CANNOT_FINISH = "cannot finish in its budget"  # engine.explore.CANNOT_FINISH (not imported: a light module)
DEFAULT_BUDGET_S = 20.0
DEFAULT_BOUND = 2
# The budget is CPU seconds of the search process (time.process_time), not wall seconds: the
# farm runs the proof beside the verify replays and the fix check (farm/triage_ahead.py) and
# beside fuzz jobs on the same cores, and a wall budget would shrink the search under that load
# (a scenario exhausted in 15 s alone would end "not exhausted"). The search also stops (not
# exhausted, as for the budget) after ``max_wall`` wall seconds, by default this many times the
# budget, so a starved machine cannot hold a triage task past its time limit.
WALL_FACTOR = 4


def budget_s() -> float:
    """``$FUZZFARM_PROVE_BUDGET_S`` (seconds per bucket; 0 turns the proof off)."""
    try:
        return settings.number(BUDGET_ENV, float(DEFAULT_BUDGET_S))
    except ValueError:
        return DEFAULT_BUDGET_S


def proof_line(res: dict) -> str:
    """The sentence a user reads: never "proven" unless the search was exhausted."""
    if res.get("error"):
        return f"no proof: {res['error']}"
    n = res.get("schedules", 0)
    if res.get("failure"):
        f = res["failure"]
        return f"NOT fixed for this scenario: {f['kind']} with {f['preemptions']} preemption(s) ({n} schedules)"
    kept = "; ".join(f"{k} reachable ({c} schedules; a hazard the fix keeps: FIXED_MAY_FAIL)"
                     for k, c in sorted((res.get("tolerated") or {}).items()))
    kept = f"; {kept}" if kept else ""
    from fuzzfarm.engine.explore import assumption, partial_proof
    reduction = bool(res.get("reduction"))  # a proof with the reduction says what it assumes
    if res.get("exhausted"):
        return f"proven up to {res['bound']} preemptions for this scenario ({n} schedules){assumption(reduction)}{kept}"
    part = ""
    if res.get("stopped_by") == CANNOT_FINISH:
        left = sum(int(v) for v in (res.get("pending") or {}).values())
        part = (f"; stopped early after {res.get('elapsed_s', 0):g} s: it could not finish in its budget "
                f"(at least {left} runs were left)")
    proven = partial_proof(res["proven_bound"], res.get("proven_schedules", 0), reduction) \
        if res.get("proven_bound", -1) >= 0 else ""
    return f"no counterexample in {n} schedules (not exhausted at {res.get('bound')} preemptions){part}{proven}{kept}"


def prove_fixed(harness, fixed_variant: str, data: bytes, bound: int = DEFAULT_BOUND,
                budget: float | None = None, reduce: bool | None = None, max_wall: float | None = None) -> dict:
    """Explore the scenario of ``data`` on ``fixed_variant`` with at most ``bound`` preemptions
    for at most ``budget`` CPU seconds of the search (default :func:`budget_s`) in a child process. Returns
    ``exhausted``, ``schedules``, ``runs``, ``bound``, ``elapsed_s``, ``failure`` (kind,
    preemptions, ... of the first failing schedule, or None), ``reproducer`` (hex, or None),
    ``reduce`` (default ``$FUZZFARM_PROVE_REDUCTION`` = 1, else off) turns the partial-order
    reduction on. ``scenario``, ``tolerated`` (failures whose signature the harness's ``FIXED_MAY_FAIL`` declares
    the fix keeps: counted by signature, not counterexamples) and ``line`` (:func:`proof_line`); ``error``
    when the search could not run."""
    budget = budget_s() if budget is None else budget
    max_wall = max(budget, WALL_FACTOR * budget if max_wall is None else max_wall)
    if reduce is None:
        reduce = os.environ.get(REDUCTION_ENV, "0") == "1"
    target = resolve(harness)
    kept = sorted(target.fixed_may_fail())  # signatures, as the fix verdict and fix fuzz match them
    run = child.run_child("fuzzfarm.collector.prove", target, fixed_variant, data,
                          {"bound": bound, "max_time": budget, "max_wall": max_wall, "tolerate": kept, "reduce": reduce,
                           "give_up_early": os.environ.get(GIVE_UP_EARLY_ENV, "1") != "0"},
                          timeout=max_wall + 60, memory_limit_mb=2048)
    res = run.result
    if res is None and run.load_error() is not None:
        res = {"error": run.load_error(), "exhausted": False, "schedules": 0, "bound": bound, "failure": None}
    if res is None:
        res = {"error": f"the search process {'timed out' if run.rc is None else f'exited with code {run.rc}'}: "
                        f"{run.tail()}", "exhausted": False, "schedules": 0, "bound": bound, "failure": None}
    res["line"] = proof_line(res)
    # the starvation setting the search ran under (docs/timing.md): a proof holds for it only
    from fuzzfarm import harness as H
    setting = H.parse_max_starvation(target.max_starvation) if target.max_starvation else H.max_starvation_s()
    res["starvation_bound"] = H.max_starvation_text(setting)
    res["line"] += f"; starvation bound {H.bound_words(setting)}"
    return res


def _search(mod, variant: str, data: bytes, req: dict) -> dict:
    """The child's search (see :func:`prove_fixed`), run by ``fuzzfarm.harness.child.child_main``."""
    import time

    from fuzzfarm.engine.explore import ExploreError, explore

    # CPU seconds of this process; the wall limit, when given, counts as a proportional share of
    # the budget, so whichever runs out first stops the search.
    p0, m0 = time.process_time(), time.monotonic()
    scale = req["max_time"] / req["max_wall"] if req["max_wall"] > 0 and req["max_time"] else 0.0

    def clock() -> float:
        return max(time.process_time(), p0 + (time.monotonic() - m0) * scale)

    try:
        res = explore(mod, variant, data, bound=req["bound"], max_time=req["max_time"] or None,
                      tolerate=req["tolerate"], reduce=req["reduce"], clock=clock,
                      give_up_early=req["give_up_early"]).to_json()
    except ExploreError as e:
        res = {"error": str(e), "exhausted": False, "schedules": 0, "bound": req["bound"], "failure": None}
    if res.get("failure"):
        res["failure"].pop("decisions", None)
    return res


def main(argv: list[str] | None = None) -> int:
    return child.child_main(_search, argv)


if __name__ == "__main__":
    raise SystemExit(main())
