"""Time to bug: runs and seconds to the first crash of each seed bug, per harness x variant x
strategy, over seeds; for fixed variants, runs without a failure and PCT's confidence figure.

    python -m benchmarks.time_to_bug [--quick] [--json] [--harness NAME]

* ``bytes``: a real atheris subprocess, ``python <harness file> -seed=S -runs=N
  -max_total_time=T ... CORPUS`` from an empty corpus. Runs to the crash are libFuzzer's
  ``stat::number_of_executed_units`` (printed at the crash), seconds are from libFuzzer's
  ``INFO: Seed:`` line to its ``Test unit written to`` line (Python start-up and
  instrumentation are reported apart). A crash that is not the seed bug (e.g. an upstream
  hazard) restarts libFuzzer on the grown corpus with the next seed, as a farm job does; runs
  and seconds add up.
* ``random`` / ``pct``: the farm's walk (``fuzzfarm.engine.walk``): event bytes from a seeded
  RNG, the schedule from ``RandomStrategy`` / ``PCTStrategy`` through ``harness.schedule_from``,
  uninstrumented, in a child process; the first failure matching the seed bug whose bytes
  reproducer (``Execution.as_bytes_input``) replays as the seed bug stops the seed (a crash that
  does not replay is counted as ``unreplayable`` and skipped, as the farm's walk skips it).
* fixed variants: each strategy runs for ``fixed_s`` seconds; reported: runs, runs without any
  failure, failures by kind (the seed bug must never appear; upstream hazards the fix kept may),
  and for ``pct`` the PCT lower bound on the per-run chance of hitting a bug of depth d,
  p >= 1/(n * k^(d-1)) (n goroutines, k scheduling steps with a choice, both the largest
  measured, d the strategy's depth), and the confidence 1 - (1 - p)^N after N runs without a
  failure.
"""

from __future__ import annotations

import base64
import json
import math
import os
import random
import shutil
import statistics
import sys
import tempfile
import time

from benchmarks import common as C

STRATEGIES = ("bytes", "random", "pct")
RUN_TIMEOUT_S = 10.0


# ---- bytes: a real atheris subprocess ----------------------------------------------------------
def _libfuzzer_seed(seed: int, restart: int) -> int:
    if restart == 0:
        return seed
    from fuzzfarm.engine.atheris_job import run_seed
    return run_seed(seed, restart)


def atheris_until(spec: C.HarnessSpec, variant: str, seed: int, *, max_s: float, max_runs: int,
                  bug: C.SeedBug | None, stop_on_bug: bool = True, workdir: str, mod=None) -> dict:
    """Fuzz ``spec``/``variant`` with atheris from an empty corpus until the seed bug ``bug``
    (with ``stop_on_bug``; else until the budget is spent, counting its crashes). Returns runs,
    fuzzing seconds, start-up seconds, restarts, other failures by kind, seed-bug crashes, and
    the crashing input of the seed bug (bytes) if it stopped there."""
    from fuzzfarm.engine.libfuzzer_output import artifact_written, parse_final_execs, parse_status
    from fuzzfarm.harness.runone import outcome_of_module

    mod = mod or __import__(spec.module, fromlist=["_"])
    corpus = os.path.join(workdir, "corpus")
    art = os.path.join(workdir, "artifacts")
    os.makedirs(corpus, exist_ok=True)
    os.makedirs(art, exist_ok=True)
    env = C.child_env({"FUZZFARM_VARIANT": variant})
    runs = 0
    fuzz_s = startup_s = 0.0
    other: dict[str, int] = {}
    seed_bug_hits = 0
    found = None
    restart = -1
    while runs < max_runs and fuzz_s < max_s - 0.5 and found is None:
        restart += 1
        left_s = max(1, int(math.ceil(max_s - fuzz_s)))
        argv = [C.PY, spec.path, f"-seed={_libfuzzer_seed(seed, restart)}", f"-runs={max_runs - runs}",
                f"-max_total_time={left_s}", f"-timeout={int(RUN_TIMEOUT_S)}", "-rss_limit_mb=2048",
                f"-artifact_prefix={art}/", "-print_final_stats=1", corpus]
        st = {"t_seed": None, "t_crash": None, "crash": None, "final": None, "last": 0}
        t_spawn = time.monotonic()

        def on_line(t: float, line: str, st=st) -> None:
            if st["t_seed"] is None and line.startswith("INFO: Seed:"):
                st["t_seed"] = t
            s = parse_status(line)
            if s is not None:
                st["last"] = s.execs
            fin = parse_final_execs(line)
            if fin is not None:
                st["final"] = fin
            path = artifact_written(line)
            if path and st["crash"] is None:
                st["crash"], st["t_crash"] = path, t

        rc, lines = C.run_streaming(argv, env=env, cwd=workdir, timeout=left_s + 2 * RUN_TIMEOUT_S + 30,
                                    on_line=on_line)
        t_end = lines[-1][0] if lines else time.monotonic()
        t0 = st["t_seed"] or t_spawn
        startup_s += t0 - t_spawn
        fuzz_s += (st["t_crash"] or t_end) - t0
        n = st["final"] if st["final"] is not None else st["last"]
        runs += n
        if st["crash"] is None:
            if st["t_seed"] is None:  # never started fuzzing: a broken harness
                tail = " | ".join(ln for _, ln in lines[-5:])
                raise RuntimeError(f"atheris on {spec.name}/{variant} did not start (rc {rc}): {tail}")
            break
        with open(st["crash"], "rb") as f:
            data = f.read()
        os.unlink(st["crash"])
        out = outcome_of_module(mod, spec.name, variant, data)
        if bug is not None and bug.matches_outcome(out):
            seed_bug_hits += 1
            if stop_on_bug:
                found = data
        else:
            key = out.get("kind") if out.get("failed") else "crash that does not replay"
            other[key] = other.get(key, 0) + 1
        if n == 0 and found is None:  # crashed on the empty input before fuzzing: would loop
            break
    return {"seed": seed, "found": found is not None, "runs": runs, "seconds": round(fuzz_s, 3),
            "startup_s": round(startup_s / max(1, restart + 1), 3), "restarts": restart,
            "other_failures": other, "seed_bug_failures": seed_bug_hits, "input": found}


# ---- random / pct: the walk, in a child process --------------------------------------------
def _child(spec: dict) -> int:
    """Child process: the walk loop per seed; prints one JSON line per seed."""
    from fuzzfarm import harness as H
    from fuzzfarm.engine.guard import RunTimeout, wall_limit
    from fuzzfarm.engine.walk import EVENT_LENGTHS
    from fuzzfarm.harness.runone import outcome_of_module
    from fuzzfarm.strategies import make

    mod = H.get(spec["harness"]).load()
    bug = C.SEED_BUGS.get(spec["harness"]) if spec["mode"] == "bug" else None
    any_bug = C.SEED_BUGS.get(spec["harness"])
    variant, strategy = spec["variant"], spec["strategy"]
    for seed in spec["seeds"]:
        run_seed = seed * 1_000_003  # restart 0 of the farm's walk job for this seed
        strat = make(strategy, seed=run_seed)
        events = random.Random(f"events:{run_seed}")
        runs = decisions = 0
        n_max = k_max = 0
        other: dict[str, int] = {}
        seed_bug_hits = unreplayable = 0
        found = None
        replayed = None
        elapsed = 0.0
        while runs < spec["max_runs"] and elapsed < spec["max_s"]:
            data = events.randbytes(events.choice(EVENT_LENGTHS))
            t0 = time.perf_counter()
            try:
                with wall_limit(RUN_TIMEOUT_S), H.schedule_from(strat):
                    ex = mod.execute(data, variant)
                f = ex.failure
            except RunTimeout:
                ex, f = None, None
                other["timeout (wall)"] = other.get("timeout (wall)", 0) + 1
            except Exception as e:  # noqa: BLE001 - the harness's own decoding failed
                ex, f = None, None
                other[f"harness error {type(e).__name__}"] = other.get(f"harness error {type(e).__name__}", 0) + 1
            elapsed += time.perf_counter() - t0
            runs += 1
            if ex is None:
                continue
            decisions += len(ex.report.decisions)
            n_max = max(n_max, int(getattr(ex.report, "goroutines", 0) or 0))
            k_max = max(k_max, int(getattr(strat, "step", 0) or 0))
            if f is None:
                continue
            if any_bug is not None and any_bug.matches_failure(f):
                seed_bug_hits += 1
            else:
                other[f.kind] = other.get(f.kind, 0) + 1
            # as the farm's walk: every failing run is replayed from its bytes reproducer (time
            # counted), and only one that replays with the same failure is reported
            repro = ex.as_bytes_input(data)
            t0 = time.perf_counter()
            try:
                with wall_limit(RUN_TIMEOUT_S):
                    o = outcome_of_module(mod, spec["harness"], variant, repro)
            except RunTimeout:
                o = {"failed": False}
            elapsed += time.perf_counter() - t0
            same = (o.get("failed") and o.get("kind") == f.kind
                    and list(o.get("crash_state") or []) == list(f.crash_state))
            if bug is not None and bug.matches_failure(f):
                if same:
                    found, replayed = repro, True
                    break
                unreplayable += 1
        print(json.dumps({
            "seed": seed, "found": found is not None, "runs": runs, "seconds": round(elapsed, 4),
            "replayed": replayed, "unreplayable": unreplayable, "other_failures": other,
            "seed_bug_failures": seed_bug_hits,
            "decisions_per_run": round(decisions / max(1, runs), 1), "max_goroutines": n_max,
            "max_k": k_max, "depth": getattr(strat, "depth", None),
            "input_b64": base64.b64encode(found).decode() if found is not None else None}), flush=True)
    return 0


def walk_seeds(harness: str, variant: str, strategy: str, seeds, *, max_s: float, max_runs: int,
               mode: str) -> list[dict]:
    spec = {"harness": harness, "variant": variant, "strategy": strategy, "seeds": list(seeds),
            "max_s": max_s, "max_runs": max_runs, "mode": mode}
    timeout = len(spec["seeds"]) * (max_s + RUN_TIMEOUT_S + 5) + 60
    return C.run_json_child([C.PY, "-m", "benchmarks.time_to_bug", "--child", json.dumps(spec)], timeout=timeout)


# ---- the benchmark ------------------------------------------------------------------------
def _pct_confidence(n: int, k: int, d: int, clean_runs: int) -> tuple[float, float]:
    p = 1.0 / (max(1, n) * max(1, k) ** (d - 1))
    conf = -math.expm1(clean_runs * math.log1p(-p)) if p < 1 else 1.0
    return p, conf


def measure(prof: C.Profile, specs: list[C.HarnessSpec], log=None) -> tuple[dict, list[dict]]:
    """Run the benchmark; returns (section data, seed-bug inputs found [{harness, variant,
    strategy, seed, data}])."""
    log = log or (lambda msg: None)
    buggy, fixed, inputs = [], [], []
    work = tempfile.mkdtemp(prefix="fuzzfarm-bench-ttb-")
    try:
        for spec in specs:
            bug = spec.seed_bug
            if bug is None:
                continue
            mod = __import__(spec.module, fromlist=["_"])
            for strategy in STRATEGIES:
                log(f"time to bug: {spec.name}/{bug.variant} {strategy}")
                if strategy == "bytes":
                    seeds, cap_s, cap_runs = prof.bytes_seeds, prof.bytes_max_s, prof.bytes_max_runs
                    per_seed = []
                    for s in seeds:
                        d = os.path.join(work, f"{spec.name}-{strategy}-{s}")
                        r = atheris_until(spec, bug.variant, s, max_s=cap_s, max_runs=cap_runs, bug=bug,
                                          workdir=d, mod=mod)
                        shutil.rmtree(d, ignore_errors=True)
                        per_seed.append(r)
                else:
                    seeds, cap_s, cap_runs = prof.seeds, prof.walk_max_s, prof.walk_max_runs
                    per_seed = walk_seeds(spec.name, bug.variant, strategy, seeds, max_s=cap_s, max_runs=cap_runs,
                                          mode="bug")
                    for r in per_seed:
                        b = r.pop("input_b64", None)
                        r["input"] = base64.b64decode(b) if b else None
                for r in per_seed:
                    data = r.pop("input", None)
                    if data is not None:
                        inputs.append({"harness": spec.name, "variant": bug.variant, "strategy": strategy,
                                       "seed": r["seed"], "data": data})
                    r["input_size"] = len(data) if data is not None else None
                found = [r for r in per_seed if r["found"]]
                secs_m = C.med_max([(r["seconds"], not r["found"]) for r in per_seed])
                runs_m = C.med_max([(r["runs"], not r["found"]) for r in per_seed])
                buggy.append({
                    "harness": spec.name, "variant": bug.variant, "strategy": strategy, "seeds": list(seeds),
                    "found": len(found), "of": len(per_seed), "budget_s": cap_s, "budget_runs": cap_runs,
                    "runs_median": runs_m[0], "runs_median_censored": runs_m[1], "runs_max": runs_m[2],
                    "runs_max_censored": runs_m[3], "seconds_median": secs_m[0], "seconds_median_censored": secs_m[1],
                    "seconds_max": secs_m[2], "seconds_max_censored": secs_m[3],
                    "replayed": sum(1 for r in found if r.get("replayed") in (True, None)),
                    "unreplayable": sum(int(r.get("unreplayable") or 0) for r in per_seed),
                    "startup_s_median": (statistics.median(r["startup_s"] for r in per_seed)
                                         if strategy == "bytes" and per_seed else None),
                    "per_seed": per_seed})
            for variant in spec.fixed_variants:
                for strategy in STRATEGIES:
                    log(f"fixed: {spec.name}/{variant} {strategy}")
                    if strategy == "bytes":
                        d = os.path.join(work, f"{spec.name}-{variant}-bytes")
                        r = atheris_until(spec, variant, 1, max_s=prof.fixed_s, max_runs=10 ** 9, bug=bug,
                                          stop_on_bug=False, workdir=d, mod=mod)
                        shutil.rmtree(d, ignore_errors=True)
                        rec = {"runs": r["runs"], "seconds": r["seconds"], "failures": r["other_failures"],
                               "seed_bug_failures": r["seed_bug_failures"], "restarts": r["restarts"]}
                    else:
                        (r,) = walk_seeds(spec.name, variant, strategy, [1], max_s=prof.fixed_s, max_runs=10 ** 9,
                                          mode="fixed")
                        rec = {"runs": r["runs"], "seconds": r["seconds"], "failures": r["other_failures"],
                               "seed_bug_failures": r["seed_bug_failures"], "n": r["max_goroutines"],
                               "k": r["max_k"], "d": r["depth"]}
                    rec["clean_runs"] = rec["runs"] - rec["seed_bug_failures"] - sum(rec["failures"].values())
                    if strategy == "pct" and rec.get("d"):
                        # N = runs that ended without any failure (a run cut short by another
                        # failure does not count toward the bound)
                        rec["p"], rec["confidence"] = _pct_confidence(rec["n"], rec["k"], rec["d"], rec["clean_runs"])
                    fixed.append({"harness": spec.name, "variant": variant, "strategy": strategy,
                                  "budget_s": prof.fixed_s, **rec})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"buggy": buggy, "fixed": fixed}, inputs


def rows(data: dict) -> list[list[str]]:
    out = []
    for r in data["buggy"]:
        case = f"{r['harness']}/{r['variant']} {r['strategy']}"
        runs = (f"{C.fmt_censored(r['runs_median'], r['runs_median_censored'])} / "
                f"{C.fmt_censored(r['runs_max'], r['runs_max_censored'])}")
        secs = (f"{C.fmt_censored(r['seconds_median'], r['seconds_median_censored'], ' s')} / "
                f"{C.fmt_censored(r['seconds_max'], r['seconds_max_censored'], ' s')}")
        unrep = (f"; {r['unreplayable']} seed-bug crash(es) whose reproducer did not replay, skipped"
                 if r.get("unreplayable") else "")
        out.append([case, "seed bug: runs median / max", f"{runs}  ({r['found']}/{r['of']} seeds found{unrep})"])
        if r.get("startup_s_median") is not None:
            secs += f"  (+ {C.fmt_num(r['startup_s_median'])} s Python/atheris start-up per process, not included)"
        out.append([case, "seed bug: seconds median / max", secs])
    for r in data["fixed"]:
        case = f"{r['harness']}/{r['variant']} {r['strategy']}"
        fails = ", ".join(f"{k} x{v}" for k, v in sorted(r["failures"].items())) or "none"
        val = (f"{C.fmt_num(r['clean_runs'])} of {C.fmt_num(r['runs'])} runs in {C.fmt_num(r['seconds'])} s without a "
               f"failure; seed bug x{r['seed_bug_failures']}; other failures: {fails}")
        out.append([case, "runs without a failure", val])
        if "p" in r:
            out.append([case, "PCT: p >= 1/(n k^(d-1)), 1-(1-p)^N",
                        f"d={r['d']} n={r['n']} k={r['k']}: p >= {r['p']:.2g} per run; confidence after "
                        f"N={C.fmt_num(r['clean_runs'])} clean runs {r['confidence']:.2g}"])
    return out


def run(prof: C.Profile, only=None, log=None) -> dict:
    res, _ = run_with_inputs(prof, only, log)
    return res


def run_with_inputs(prof: C.Profile, only=None, log=None) -> tuple[dict, list[dict]]:
    t0 = time.monotonic()
    specs, notes = C.harnesses(only, seed_bug_notes=True)
    data, inputs = measure(prof, specs, log)
    settings = {"bytes_seeds": list(prof.bytes_seeds), "bytes_budget_per_seed": f"{prof.bytes_max_s:g} s / "
                f"{prof.bytes_max_runs} runs (-max_total_time / -runs)", "walk_seeds": list(prof.seeds),
                "walk_budget_per_seed": f"{prof.walk_max_s:g} s / {prof.walk_max_runs} runs",
                "fixed_budget": f"{prof.fixed_s:g} s per variant x strategy (seed 1)",
                "atheris_flags": f"-timeout={int(RUN_TIMEOUT_S)} -rss_limit_mb=2048, empty corpus",
                "pct": "PCTStrategy defaults (depth 3, k learned), as the farm's walk job"}
    notes = notes + ["seconds exclude process start-up (bytes: from libFuzzer's 'INFO: Seed:' line; "
                     "per-seed start-up is in the JSON as startup_s); '> x' = not found within the budget, "
                     "counted as larger than anything found"]
    return C.section("time_to_bug", "Time to bug", prof, settings, rows(data), data, notes, t0), inputs


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        raise SystemExit(_child(json.loads(sys.argv[2])))
    raise SystemExit(C.standalone("time_to_bug", __doc__, run))
