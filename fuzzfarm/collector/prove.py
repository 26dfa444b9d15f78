"""Fix evidence beyond one schedule: a bounded exhaustive search of the reproducer's scenario
on the fixed variant (``fuzzfarm.engine.explore``), in a fresh process, within a budget.

    python -m fuzzfarm.collector.prove HARNESS VARIANT INPUT_FILE [--bound K] [--max-time S] [--max-wall S] [--module=MOD]

prints one JSON object (``ExploreResult.to_json`` without the reproducer bytes). The fix
check's replay says the reproducer's own schedule no longer fails; this says what else was
searched: ``proven up to K preemptions for this scenario (N schedules)`` only when the search
was exhausted, else ``no counterexample in N schedules (not exhausted)``, or the
counterexample's kind when a schedule of the scenario still fails on the fixed variant.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

from fuzzfarm import child as process
from fuzzfarm.engine.target import resolve
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
    with tempfile.TemporaryDirectory(prefix="fuzzfarm-prove-") as tmp:
        path = os.path.join(tmp, "input")
        with open(path, "wb") as f:
            f.write(data)
        argv = [sys.executable, "-m", "fuzzfarm.collector.prove", target.name, fixed_variant, path,
                f"--bound={bound}", f"--max-time={budget}", f"--max-wall={max_wall}",
                *[f"--tolerate={k}" for k in kept],
                *([] if reduce else ["--no-reduction"]),
                *([] if os.environ.get(GIVE_UP_EARLY_ENV, "1") == "0" else ["--give-up-early"]),
                *target.child_args()]
        env = target.child_env()
        rc, out = process.run_bounded(argv, env=env, cwd=tmp, timeout=max_wall + 60,
                                      memory_limit_mb=2048)
    res = None
    for ln in reversed((out or "").splitlines()):
        if ln.startswith("{"):
            try:
                res = json.loads(ln)
            except ValueError:
                pass
            break
    if res is None:
        tail = (out or "").strip().splitlines()[-1:] or ["(no output)"]
        res = {"error": f"the search process {'timed out' if rc is None else f'exited with code {rc}'}: {tail[0]}",
               "exhausted": False, "schedules": 0, "bound": bound, "failure": None}
    res["line"] = proof_line(res)
    # the starvation setting the search ran under (docs/timing.md): a proof holds for it only
    from fuzzfarm import harness as H
    setting = H.parse_max_starvation(target.max_starvation) if target.max_starvation else H.max_starvation_s()
    res["starvation_bound"] = H.max_starvation_text(setting)
    res["line"] += f"; starvation bound {H.bound_words(setting)}"
    return res


def main(argv: list[str] | None = None) -> int:
    import argparse
    import time

    from fuzzfarm.engine.guard import skip_instrumentation

    ap = argparse.ArgumentParser(prog="python -m fuzzfarm.collector.prove")
    ap.add_argument("harness")
    ap.add_argument("variant")
    ap.add_argument("input")
    ap.add_argument("--bound", type=int, default=DEFAULT_BOUND)
    ap.add_argument("--max-time", type=float, default=DEFAULT_BUDGET_S)
    ap.add_argument("--module")
    ap.add_argument("--tolerate", action="append", default=[],
                    help="a failure signature 'kind at f1 <- f2 <- f3' the fix keeps")
    ap.add_argument("--no-reduction", action="store_true")
    ap.add_argument("--give-up-early", action="store_true",
                    help="stop once what is left cannot fit in the budget (engine/explore.py)")
    ap.add_argument("--max-wall", type=float, default=0.0, help="wall seconds (0: no wall limit)")
    a = ap.parse_args(argv)
    # CPU seconds of this process; the wall limit, when given, counts as a proportional share of
    # the budget, so whichever runs out first stops the search.
    p0, m0 = time.process_time(), time.monotonic()
    scale = a.max_time / a.max_wall if a.max_wall > 0 and a.max_time else 0.0

    def clock() -> float:
        return max(time.process_time(), p0 + (time.monotonic() - m0) * scale)

    skip_instrumentation()
    from fuzzfarm.engine.explore import ExploreError, explore
    from fuzzfarm.engine.target import from_child_args
    from fuzzfarm.harness import HarnessError

    try:
        with open(a.input, "rb") as f:
            data = f.read()
        mod = from_child_args(a.harness, a.module).load()
        res = explore(mod, a.variant, data, bound=a.bound, max_time=a.max_time or None,
                      tolerate=a.tolerate, reduce=not a.no_reduction, clock=clock,
                      give_up_early=a.give_up_early).to_json()
    except (HarnessError, ExploreError, OSError) as e:
        res = {"error": str(e), "exhausted": False, "schedules": 0, "bound": a.bound, "failure": None}
    if res.get("failure"):
        res["failure"].pop("decisions", None)
    sys.stdout.write(json.dumps(res) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
