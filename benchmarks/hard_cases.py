"""Hard cases: the depth-3 ``examples`` cases (``HARD = True``, docs/CASES.md) against stress.

    python -m benchmarks.hard_cases [--quick] [--json] [--harness CASE,...]

For each hard case (``--harness`` takes case ids here, e.g. ``hc16``):

* **each strategy** (``mix`` when ``fuzzfarm.strategies.make`` knows it, then ``bytes``,
  ``random``, ``pct``), on the buggy form, a fresh process per seed: seconds **from launch**
  (process start-up included) and runs to the first failure of the case's kind. ``bytes`` is
  the examples harness under atheris (``FUZZFARM_EXAMPLE`` pins the case); ``random`` / ``pct``
  (and ``mix``) are walks through the same harness (``fuzzfarm.harness.schedule_from``) under
  the farm's starvation bound;
* **stress**: the same port on real threads (``benchmarks.stress``'s runner: one OS thread per
  goroutine, real timers, ``sys.setswitchinterval(1e-6)``), tuned first on a seed not used for
  measuring (the setting with the most manifestations per second), then ``trials`` fresh
  processes of ``trial_s`` seconds each: the hit rate is trials with at least one
  manifestation / trials, beside the median seconds and runs to a trial's first manifestation
  (a trial ends there: whether it hits is the question, so the rest of its 60 s is not run).

The full profile runs 10 stress trials of 60 s per case and gives every strategy 60 s per
seed (the acceptance figures of the issue); ``--quick`` uses 2 trials of 8 s and 20 s per seed,
and its table says so: a quick hit rate is not the acceptance figure.
"""

from __future__ import annotations

import json
import os
import random
import re
import statistics
import sys
import tempfile
import time

from benchmarks import common as C

# budgets (the suite's Profile has no hard-case fields; they live here, keyed by profile)
BUDGETS = {
    "quick": {"seeds": (1,), "max_s": 20.0, "trials": 2, "trial_s": 8.0, "tune_s": 0.6},
    "full": {"seeds": (1, 2, 3), "max_s": 60.0, "trials": 10, "trial_s": 60.0, "tune_s": 3.0},
}
HARNESS_FILE = os.path.join(C.ROOT, "harnesses", "examples_race.py")
TUNING_SEED = 1000


def hard_cases(only=None) -> list[str]:
    from fuzzfarm import examples
    names = [n.split("_", 1)[0] for n in examples.CASE_NAMES
             if getattr(examples.load(n), "HARD", False)]
    if only:
        wanted = {w.lower().replace("-", "") for w in only}
        names = [n for n in names if n in wanted]
    return names


def strategies() -> list[str]:
    """``mix`` first when this branch has it (the farm's default once it exists)."""
    from fuzzfarm import strategies as S
    out = []
    try:
        S.make("mix", seed=1)
        out.append("mix")
    except (ValueError, TypeError):
        pass
    return out + ["bytes", "random", "pct"]


# ---- children -------------------------------------------------------------------------------
def _load_case_harness():
    from fuzzfarm import examples
    from fuzzfarm import harness as H
    mod = H.get("examples").load()
    case = examples.load(os.environ["FUZZFARM_EXAMPLE"])
    return H, mod, case


def _child_walk(spec: dict) -> int:
    H, mod, case = _load_case_harness()
    from fuzzfarm import strategies as S
    print(json.dumps({"event": "ready"}), flush=True)
    start = time.perf_counter()
    runs, found, kind = 0, False, None
    while time.perf_counter() - start < spec["max_s"]:
        strat = S.make(spec["strategy"], seed=spec["seed"] * 1_000_003 + runs)
        with H.schedule_from(strat):
            f = mod.execute(b"", "buggy").failure
        runs += 1
        if f is not None and f.kind in case.KINDS:
            found, kind = True, f.kind
            break
    print(json.dumps({"event": "result", "found": found, "runs": runs, "kind": kind,
                      "search_s": round(time.perf_counter() - start, 4)}), flush=True)
    return 0


def _child_stress(spec: dict) -> int:
    sys.setswitchinterval(1e-6)
    H, mod, case = _load_case_harness()
    from benchmarks.stress import _wall_timeout
    for jitter, yield_p, scale in spec["settings"]:
        rng = random.Random(f"stress:{spec['seed']}")
        runs = hits = 0
        other: dict[str, int] = {}
        first = first_runs = None
        start = time.perf_counter()
        while time.perf_counter() - start < spec["wall_s"]:
            try:
                with H.on_threads(seed=rng.getrandbits(32), jitter_s=jitter, yield_p=yield_p, time_scale=scale,
                                  wall_timeout_s=_wall_timeout(scale)):
                    f = mod.execute(b"", "buggy").failure
            except Exception as e:  # noqa: BLE001 - counted, never hidden
                f = None
                other[f"harness error {type(e).__name__}"] = other.get(f"harness error {type(e).__name__}", 0) + 1
            runs += 1
            if f is None:
                continue
            if f.kind in case.KINDS:
                hits += 1
                if first is None:
                    first = time.perf_counter() - start
                    first_runs = runs
                if spec.get("stop_at_first"):
                    break  # a measuring trial only asks "hit within trial_s?": the rest of it is not needed
            else:
                other[f.kind] = other.get(f.kind, 0) + 1
        print(json.dumps({"seed": spec["seed"], "jitter_s": jitter, "yield_p": yield_p, "time_scale": scale,
                          "runs": runs, "manifestations": hits, "seconds": round(time.perf_counter() - start, 3),
                          "first_s": None if first is None else round(first, 4), "first_runs": first_runs,
                          "other_failures": other}),
              flush=True)
    return 0


# ---- parent ---------------------------------------------------------------------------------
def _env(case: str) -> dict:
    return C.child_env({"FUZZFARM_EXAMPLE": case, "FUZZFARM_VARIANT": "buggy"})


def _walk(case: str, strategy: str, seed: int, max_s: float) -> dict:
    argv = [C.PY, "-m", "benchmarks.hard_cases", "--child", json.dumps(
        {"mode": "walk", "strategy": strategy, "seed": seed, "max_s": max_s})]
    t0 = time.monotonic()
    rc, lines = C.run_streaming(argv, env=_env(case), cwd=C.ROOT, timeout=max_s + 120)
    for t, ln in lines:
        if ln.startswith("{") and '"result"' in ln:
            r = json.loads(ln)
            return {"seed": seed, "found": r["found"], "runs": r["runs"],
                    "launch_s": round(t - t0, 3), "search_s": r["search_s"]}
    raise RuntimeError(f"walk child for {case}/{strategy} exited {rc}: " + " | ".join(ln for _, ln in lines[-8:]))


def _bytes(case: str, seed: int, max_s: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        argv = [C.PY, HARNESS_FILE, f"-seed={seed}", f"-max_total_time={int(max_s)}", "-print_final_stats=1",
                f"-artifact_prefix={tmp}/", "-timeout=30"]
        t0 = time.monotonic()
        crash_t = []

        def on_line(t, ln):
            if "Test unit written to" in ln or "==ERROR" in ln or "deadly signal" in ln:
                if not crash_t:
                    crash_t.append(t)

        rc, lines = C.run_streaming(argv, env=_env(case), cwd=tmp, timeout=max_s + 120, on_line=on_line)
        text = "\n".join(ln for _, ln in lines)
        m = re.search(r"stat::number_of_executed_units: (\d+)", text)
        runs = int(m.group(1)) if m else None
        crashes = [f for f in os.listdir(tmp) if f.startswith("crash-")]
        found = bool(crashes) and rc == 77
        return {"seed": seed, "found": found, "runs": runs, "exit": rc,
                "launch_s": round((crash_t[0] if (found and crash_t) else time.monotonic()) - t0, 3)}


def _stress(case: str, settings, wall_s: float, seed: int, stop_at_first: bool = False) -> list[dict]:
    spec = {"mode": "stress", "settings": [list(s) for s in settings], "wall_s": wall_s, "seed": seed,
            "stop_at_first": stop_at_first}
    return C.run_json_child([C.PY, "-m", "benchmarks.hard_cases", "--child", json.dumps(spec)],
                            timeout=len(settings) * (wall_s + 10) + 120, env=_env(case))


def measure(prof: C.Profile, only=None, log=None) -> dict:
    from benchmarks.stress import CANDIDATES, _wall_timeout
    from fuzzfarm import examples
    log = log or (lambda msg: None)
    b = BUDGETS[prof.name]
    out = []
    for case in hard_cases(only):
        mod = examples.load(case)
        rec = {"case": case, "id": mod.ID, "title": mod.TITLE, "source": mod.SOURCE, "depth": mod.DEPTH,
               "strategies": {}, "stress": None}
        for strat in strategies():
            per_seed = []
            for seed in b["seeds"]:
                log(f"hard_cases: {case} {strat} seed {seed}")
                per_seed.append(_bytes(case, seed, b["max_s"]) if strat == "bytes" else
                                _walk(case, strat, seed, b["max_s"]))
            first = C.med_max([(r["launch_s"], not r["found"]) for r in per_seed])
            rec["strategies"][strat] = {"per_seed": per_seed, "found": sum(r["found"] for r in per_seed),
                                        "of": len(per_seed), "launch_median_s": first[0],
                                        "launch_median_censored": first[1], "launch_max_s": first[2],
                                        "launch_max_censored": first[3]}
        log(f"hard_cases: {case} stress tuning")
        tuning = _stress(case, CANDIDATES, b["tune_s"], TUNING_SEED)
        best = max(tuning, key=lambda r: (r["manifestations"] / max(1e-9, r["seconds"]), r["runs"]))
        chosen = (best["jitter_s"], best["yield_p"], best["time_scale"])
        trials = []
        for i in range(b["trials"]):
            log(f"hard_cases: {case} stress trial {i + 1}/{b['trials']} ({b['trial_s']:g} s)")
            trials.extend(_stress(case, [chosen], b["trial_s"], i + 1, stop_at_first=True))
        runs = sum(r["runs"] for r in trials)
        hits = sum(r["manifestations"] for r in trials)
        firsts = [(r["first_s"], r["first_runs"]) for r in trials if r["first_s"] is not None]
        rec["stress"] = {"setting": {"jitter_s": chosen[0], "yield_p": chosen[1], "time_scale": chosen[2],
                                     "wall_timeout_s": _wall_timeout(chosen[2]), "switchinterval_s": 1e-6},
                         "tuning": tuning, "trials": trials, "trial_s": b["trial_s"],
                         "hit_trials": sum(1 for r in trials if r["manifestations"]), "of": len(trials),
                         "runs": runs, "manifestations": hits,
                         "first_median_s": statistics.median([f for f, _ in firsts]) if firsts else None,
                         "first_runs_median": statistics.median([n for _, n in firsts]) if firsts else None}
        out.append(rec)
    return {"cases": out}


def rows(data: dict, prof: C.Profile) -> list[list[str]]:
    b = BUDGETS[prof.name]
    out = []
    for r in data["cases"]:
        case = f"{r['id']} ({r['case']}) depth {r['depth']}"
        for name, s in r["strategies"].items():
            seeds = "; ".join(f"{'' if x['found'] else '> '}{x['launch_s']:.3g} s / "
                              f"{'?' if x['runs'] is None else x['runs']} runs" for x in s["per_seed"])
            out.append([case, f"{name}: from launch to first failure (s / runs, per seed)",
                        f"{seeds}  ({s['found']}/{s['of']} seeds within {b['max_s']:g} s)"])
        st = r["stress"]
        first = ("no trial hit" if st.get("first_median_s") is None else
                 f"a hit trial's first manifestation after a median {C.fmt_num(st['first_median_s'])} s / "
                 f"{C.fmt_num(st['first_runs_median'])} runs")
        out.append([case, "stress: trials with a hit (each trial ends at its first manifestation)",
                    f"{st['hit_trials']}/{st['of']} trials of {st['trial_s']:g} s; {first}; "
                    f"{C.fmt_num(st['runs'])} runs in all (jitter_s={st['setting']['jitter_s']:g}, "
                    f"yield_p={st['setting']['yield_p']:g}, time_scale={st['setting']['time_scale']:g})"])
    return out


def run(prof: C.Profile, only=None, log=None) -> dict:
    t0 = time.monotonic()
    if isinstance(only, str):
        only = [only]
    if only:  # --harness is repeatable; "hc18,hc19" is taken as two, and an unknown case is an error
        only = [w for entry in only for w in entry.split(",") if w]
        unknown = [w for w in only if not hard_cases([w])]
        if unknown:
            print(f"hard_cases: not a hard case: {', '.join(unknown)}; hard cases: {', '.join(hard_cases())}",
                  file=sys.stderr)
            raise SystemExit(2)
    data = measure(prof, only, log)
    b = BUDGETS[prof.name]
    settings = {"seeds per strategy": list(b["seeds"]), "budget per seed (s)": b["max_s"],
                "stress trials": b["trials"], "stress seconds per trial": b["trial_s"],
                "stress tuning": f"benchmarks.stress.CANDIDATES x {b['tune_s']:g} s on seed {TUNING_SEED}",
                "strategies": strategies()}
    notes = ["fuzzfarm seconds are from process launch (start-up included) to the first failure of the case's "
             "kind; stress hit rate = trials with >= 1 manifestation / trials",
             "walks (random, pct, mix) run through the examples harness under the farm's starvation bound; "
             "bytes is atheris on the same harness"]
    if "mix" not in settings["strategies"]:
        notes.append("mix: not offered by fuzzfarm.strategies on this branch; measured bytes/random/pct")
    if prof.quick:
        notes.append(f"QUICK profile: {b['trials']} stress trials of {b['trial_s']:g} s and {b['max_s']:g} s per "
                     f"seed; the acceptance figures need the full profile (10 trials of 60 s)")
    return C.section("hard_cases", "Hard cases (depth 3) vs stress", prof, settings, rows(data, prof), data, notes,
                     t0)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        spec = json.loads(sys.argv[2])
        raise SystemExit(_child_walk(spec) if spec["mode"] == "walk" else _child_stress(spec))
    raise SystemExit(C.standalone("hard_cases", __doc__, run))
