"""Minimization: input size and preemption count before -> after, and time taken, per bucket.

    python -m benchmarks.minimization [--quick] [--json] [--harness NAME]

The inputs are the seed-bug crashes ``time_to_bug`` found (bytes: atheris crash files; random /
pct: their bytes reproducers), grouped into buckets by signature exactly as the collector does
(``fuzzfarm.runone`` outcome -> ``fuzzfarm.collector.signature``). Up to ``min_inputs`` inputs
per bucket (taken round-robin over the strategies that found it) go through the collector's own
``fuzzfarm.collector.minimize`` with a ``min_budget_s`` wall budget each, which must return an
input with the same signature. Run standalone, this first runs ``time_to_bug`` for the inputs.
The full profile minimizes each input a second time without bound 2's give-up
(``Shrinker.BOUND2_OTHER_STREAK``) and reports runs and seconds with / without as ratios, and
how many results came out byte for byte the same.
"""

from __future__ import annotations

import statistics
import time

from benchmarks import common as C


def buckets_of(inputs: list[dict]) -> dict[tuple, list[dict]]:
    from fuzzfarm import harness as H
    from fuzzfarm.collector import signature_of
    from fuzzfarm.harness.runone import outcome_of_module

    mods: dict[str, object] = {}
    out: dict[tuple, list[dict]] = {}
    for item in inputs:
        mod = mods.get(item["harness"]) or mods.setdefault(item["harness"], H.get(item["harness"]).load())
        o = outcome_of_module(mod, item["harness"], item["variant"], item["data"])
        sig = signature_of(o)
        if sig is None:
            continue
        key = (item["harness"], item["variant"], sig)
        label = f"{o['kind']} @ {' < '.join((o.get('crash_state') or [])[:2])}"
        out.setdefault(key, []).append({**item, "label": label, "preemptions": o.get("preemptions", 0)})
    return out


def _round_robin(items: list[dict], n: int) -> list[dict]:
    by: dict[str, list[dict]] = {}
    for it in items:
        by.setdefault(it["strategy"], []).append(it)
    picked = []
    while len(picked) < n and any(by.values()):
        for k in sorted(by):
            if by[k] and len(picked) < n:
                picked.append(by[k].pop(0))
    return picked


def measure(prof: C.Profile, inputs: list[dict], log=None) -> dict:
    from fuzzfarm.collector import minimize
    log = log or (lambda msg: None)
    out = []
    for (harness, variant, sig), items in sorted(buckets_of(inputs).items()):
        runs = []
        for it in _round_robin(items, prof.min_inputs):
            log(f"minimization: {harness}/{variant} {it['label']} ({it['strategy']} seed {it['seed']}, "
                f"{len(it['data'])} bytes)")
            t0 = time.monotonic()
            res = minimize(harness, variant, it["data"], expected_signature=sig, budget_s=prof.min_budget_s)
            row = {"strategy": it["strategy"], "seed": it["seed"], "size_before": res.original_size,
                   "size_after": res.minimized_size, "preemptions_before": res.preemptions_before,
                   "preemptions_after": res.preemptions_after, "runs": res.runs,
                   "seconds": round(time.monotonic() - t0, 3), "stopped": res.stopped,
                   "same_signature": res.signature == sig}
            if not prof.quick:  # the same input without bound 2's give-up (shrink.Shrinker.BOUND2_OTHER_STREAK)
                t0 = time.monotonic()
                old = minimize(harness, variant, it["data"], expected_signature=sig, budget_s=prof.min_budget_s,
                               bound2_other_streak=NO_STREAK_LIMIT)
                row["no_streak_limit"] = {"size_after": old.minimized_size, "preemptions_after": old.preemptions_after,
                                          "runs": old.runs, "seconds": round(time.monotonic() - t0, 3),
                                          "stopped": old.stopped, "same_bytes": old.data == res.data}
            runs.append(row)
        out.append({"harness": harness, "variant": variant, "signature": sig, "label": items[0]["label"],
                    "inputs_found": len(items), "minimized": runs})
    return {"buckets": out}


NO_STREAK_LIMIT = 10 ** 9


def _med(xs):
    return statistics.median(xs) if xs else float("nan")


def rows(data: dict) -> list[list[str]]:
    out = []
    for b in data["buckets"]:
        m = b["minimized"]
        if not m:
            continue
        case = f"{b['harness']}/{b['variant']} {b['label']}"
        ok = sum(1 for r in m if r["same_signature"])
        out.append([case, f"size before -> after (median of {len(m)})",
                    f"{C.fmt_num(_med([r['size_before'] for r in m]))} -> "
                    f"{C.fmt_num(_med([r['size_after'] for r in m]))} bytes"])
        out.append([case, "preemptions before -> after",
                    f"{C.fmt_num(_med([r['preemptions_before'] for r in m]))} -> "
                    f"{C.fmt_num(_med([r['preemptions_after'] for r in m]))}"])
        out.append([case, "time median / max",
                    f"{C.fmt_num(_med([r['seconds'] for r in m]))} s / {C.fmt_num(max(r['seconds'] for r in m))} s "
                    f"({C.fmt_num(_med([r['runs'] for r in m]))} runs; same bug {ok}/{len(m)})"])
        old = [r for r in m if "no_streak_limit" in r]
        if old:
            same = sum(1 for r in old if r["no_streak_limit"]["same_bytes"])
            out.append([case, "with / without bound 2's give-up: runs, seconds (ratio of medians)",
                        f"x{C.fmt_num(_med([r['runs'] for r in old]) / max(1, _med([r['no_streak_limit']['runs'] for r in old])))}"
                        f", x{C.fmt_num(_med([r['seconds'] for r in old]) / max(1e-9, _med([r['no_streak_limit']['seconds'] for r in old])))}"
                        f"; same result {same}/{len(old)}"])
    return out


def run(prof: C.Profile, only=None, log=None, inputs: list[dict] | None = None) -> dict:
    t0 = time.monotonic()
    notes = []
    if inputs is None:
        from benchmarks import time_to_bug
        _, inputs = time_to_bug.run_with_inputs(prof, only, log)
        notes.append("inputs: the seed-bug crashes of time_to_bug, run just before in this process")
    data = measure(prof, inputs, log)
    settings = {"inputs_per_bucket": prof.min_inputs, "budget_s": prof.min_budget_s,
                "minimizer": "fuzzfarm.collector.minimize (bytes, then preemptions; signature kept)"}
    return C.section("minimization", "Minimization", prof, settings, rows(data), data, notes, t0)


if __name__ == "__main__":
    raise SystemExit(C.standalone("minimization", __doc__, run))
