"""Stress baseline: the same ported code on real OS threads, as users hunt races today.

    python -m benchmarks.stress [--quick] [--json] [--harness NAME]

Each run decodes its events like a farm walk (seeded RNG bytes, ``fuzzfarm.engine.walk``'s
lengths) and runs the scenario under ``harness.on_threads`` (``fuzzfarm.gosim.threaded``: one
OS thread per goroutine, a big lock released at every scheduling point, real timers) with
``sys.setswitchinterval(1e-6)`` in a child process. Random sleeps at scheduling points
(``jitter_s`` with probability ``yield_p``) and the virtual-to-wall ``time_scale`` are tuned
first, on a seed not used for measuring: the setting with the most manifestations of the seed
bug per second wins (stress gets its best shot). Then every measuring seed runs for the same
wall time fuzzfarm's walks get per seed (``walk_max_s``): runs, manifestations, seconds to the
first one. The ratio fuzzfarm / stress compares median seconds to the first seed-bug crash
measured in the same suite run (a "not found in T s" counts as > T).

Run standalone, this also runs ``time_to_bug`` for the fuzzfarm side of the ratio.
"""

from __future__ import annotations

import json
import random
import sys
import time

from benchmarks import common as C

TUNING_SEED = 1000
# (jitter_s, yield_p, time_scale): random sleeps of up to jitter_s with probability yield_p
# at each scheduling point; virtual seconds -> wall seconds
CANDIDATES = [(0.0, 0.0, 1e-3), (1e-5, 1.0, 1e-3), (1e-4, 0.1, 1e-3), (1e-3, 0.05, 1e-3),
              (0.0, 0.0, 1e-4), (1e-5, 1.0, 1e-4), (1e-4, 0.1, 1e-4), (1e-3, 0.05, 1e-4)]


def _wall_timeout(time_scale: float) -> float:
    """A run with no progress for this long is a hang: well above the longest scenario's
    virtual time (a few hundred virtual seconds) at this ``time_scale``."""
    return max(0.25, 1000 * time_scale)


def _child(spec: dict) -> int:
    sys.setswitchinterval(1e-6)
    from fuzzfarm import harness as H
    from fuzzfarm.engine.walk import EVENT_LENGTHS

    mod = H.get(spec["harness"]).load()
    bug = C.SEED_BUGS[spec["harness"]]
    variant = spec["variant"]
    for seed in spec["seeds"]:
        for jitter, yield_p, scale in spec["settings"]:
            events = random.Random(f"events:{seed * 1_000_003}")
            rng = random.Random(f"stress:{seed}")
            runs = hits = 0
            other: dict[str, int] = {}
            first = None
            start = time.perf_counter()
            while time.perf_counter() - start < spec["wall_s"]:
                data = events.randbytes(events.choice(EVENT_LENGTHS))
                try:
                    with H.on_threads(seed=rng.getrandbits(32), jitter_s=jitter, yield_p=yield_p, time_scale=scale,
                                      wall_timeout_s=_wall_timeout(scale)):
                        ex = mod.execute(data, variant)
                    f = ex.failure
                except Exception as e:  # noqa: BLE001 - a harness decoding error
                    f = None
                    other[f"harness error {type(e).__name__}"] = other.get(f"harness error {type(e).__name__}", 0) + 1
                runs += 1
                if f is None:
                    continue
                if bug.matches_failure(f):
                    hits += 1
                    if first is None:
                        first = time.perf_counter() - start
                else:
                    other[f.kind] = other.get(f.kind, 0) + 1
            elapsed = time.perf_counter() - start
            print(json.dumps({"seed": seed, "jitter_s": jitter, "yield_p": yield_p, "time_scale": scale,
                              "wall_timeout_s": _wall_timeout(scale), "runs": runs, "manifestations": hits,
                              "seconds": round(elapsed, 3), "first_s": None if first is None else round(first, 4),
                              "other_failures": other}), flush=True)
    return 0


def _stress(harness: str, variant: str, seeds, settings, wall_s: float) -> list[dict]:
    spec = {"harness": harness, "variant": variant, "seeds": list(seeds), "settings": [list(s) for s in settings],
            "wall_s": wall_s}
    timeout = len(spec["seeds"]) * len(settings) * (wall_s + 5) + 60
    return C.run_json_child([C.PY, "-m", "benchmarks.stress", "--child", json.dumps(spec)], timeout=timeout)


def measure(prof: C.Profile, specs: list[C.HarnessSpec], ttb: dict | None, log=None) -> dict:
    log = log or (lambda msg: None)
    out = []
    for spec in specs:
        bug = spec.seed_bug
        if bug is None:
            continue
        log(f"stress: tuning {spec.name}")
        tuning = _stress(spec.name, bug.variant, [TUNING_SEED], CANDIDATES, prof.stress_tune_s)
        best = max(tuning, key=lambda r: (r["manifestations"] / max(1e-9, r["seconds"]), r["runs"]))
        chosen = (best["jitter_s"], best["yield_p"], best["time_scale"])
        log(f"stress: {spec.name} with jitter_s={chosen[0]:g} yield_p={chosen[1]:g} time_scale={chosen[2]:g}")
        per_seed = _stress(spec.name, bug.variant, prof.stress_seeds, [chosen], prof.walk_max_s)
        runs = sum(r["runs"] for r in per_seed)
        hits = sum(r["manifestations"] for r in per_seed)
        secs = sum(r["seconds"] for r in per_seed)
        first = C.med_max([(r["first_s"], False) if r["first_s"] is not None else (r["seconds"], True)
                           for r in per_seed])
        rec = {"harness": spec.name, "variant": bug.variant, "setting": {"jitter_s": chosen[0], "yield_p": chosen[1],
               "time_scale": chosen[2], "wall_timeout_s": _wall_timeout(chosen[2]), "switchinterval_s": 1e-6},
               "tuning": tuning, "per_seed": per_seed, "runs": runs, "manifestations": hits, "seconds": round(secs, 2),
               "runs_per_s": runs / max(1e-9, secs), "manifest_per_run": hits / max(1, runs),
               "first_median_s": first[0], "first_median_censored": first[1], "first_max_s": first[2],
               "first_max_censored": first[3], "found_seeds": sum(1 for r in per_seed if r["first_s"] is not None),
               "of": len(per_seed), "ratios": {}}
        if ttb:
            for t in ttb["buggy"]:
                if t["harness"] != spec.name:
                    continue
                rec["ratios"][t["strategy"]] = {
                    "fuzzfarm_median_s": t["seconds_median"], "fuzzfarm_censored": t["seconds_median_censored"],
                    "ratio": C.ratio_text(t["seconds_median"], t["seconds_median_censored"], first[0], first[1])}
        out.append(rec)
    return {"harnesses": out}


def rows(data: dict) -> list[list[str]]:
    out = []
    for r in data["harnesses"]:
        case = f"{r['harness']}/{r['variant']} threads"
        s = r["setting"]
        out.append([case, "setting (tuned)", f"switchinterval 1e-6 s, jitter_s={s['jitter_s']:g}, "
                    f"yield_p={s['yield_p']:g}, time_scale={s['time_scale']:g}, hang after {s['wall_timeout_s']:g} s"])
        out.append([case, "runs, manifestations", f"{C.fmt_num(r['runs'])} runs in {C.fmt_num(r['seconds'])} s, "
                    f"{C.fmt_num(r['manifestations'])} seed-bug crashes "
                    f"(1 per {C.fmt_num(r['runs'] / max(1, r['manifestations']))} runs)"])
        out.append([case, "seconds to first: median / max",
                    f"{C.fmt_censored(r['first_median_s'], r['first_median_censored'], ' s')} / "
                    f"{C.fmt_censored(r['first_max_s'], r['first_max_censored'], ' s')}  "
                    f"({r['found_seeds']}/{r['of']} seeds)"])
        if r["ratios"]:
            out.append([case, "time-to-bug ratio fuzzfarm / stress",
                        ", ".join(f"{k} {v['ratio']}" for k, v in r["ratios"].items())])
    return out


def run(prof: C.Profile, only=None, log=None, ttb: dict | None = None) -> dict:
    t0 = time.monotonic()
    specs, notes = C.harnesses(only)
    if ttb is None:
        from benchmarks import time_to_bug
        ttb = time_to_bug.run(prof, only, log)["data"]
        notes.append("fuzzfarm side of the ratio: time_to_bug, run just before in this process")
    data = measure(prof, specs, ttb, log)
    settings = {"seeds": list(prof.stress_seeds),
                "wall_s_per_seed": f"{prof.walk_max_s:g} (= time_to_bug's per-seed budget for random / pct)",
                "tuning": f"{len(CANDIDATES)} settings (jitter_s x yield_p x time_scale, below) x "
                          f"{prof.stress_tune_s:g} s on seed {TUNING_SEED}"}
    notes.append("ratio < 1: fuzzfarm finds the seed bug faster; fuzzfarm seconds exclude process start-up, "
                 "stress seconds include thread start-up (both are what each method spends per run)")
    return C.section("stress", "Stress baseline (real threads)", prof, settings, rows(data), data, notes, t0)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        raise SystemExit(_child(json.loads(sys.argv[2])))
    raise SystemExit(C.standalone("stress", __doc__, run))
