"""Launch to verified bucket, per case: the default ``mix`` against each single strategy and
against stress; and distinct schedules per second on the toy races.

    python -m benchmarks.portfolio [--quick] [--json] [--harness NAME]

Cases: the seed harnesses (checker, cluster-builder; their seed bug), every ``examples`` case
pinned with ``FUZZFARM_EXAMPLE`` (a failure of a kind in the case's ``KINDS``), and the toy races
of ``benchmarks/toys`` (any failure; no atheris entry point, so no ``bytes`` there).

Per case and strategy, over seeds, the farm's own engine (``fuzzfarm.engine.run_fuzz_job``, as
one slice of a farm job runs it) is launched from scratch and timed:

* **launch → first failure**: from the call (so the fuzz child's process start-up, imports and,
  for bytes, instrumentation are included) until it reports the first crash whose input fails
  with the case's bug here (checked in this process, time included);
* **launch → verified bucket (in-process)**: that, plus minimizing the input
  (``collector.minimize``, the farm's step) plus 10 replays in fresh processes
  (``collector.verify``, 2 at a time as the farm runs them) all failing with its signature;
  each seed's own input is minimized and verified, and the figure is the median over seeds of
  those per-seed totals (the row's minimize / replay split is the seed nearest that median);
  minimize budget 20 s (2 s and 2 replays, and only for ``mix``, in the quick profile).

``mix`` is what a 1-job ``mix`` campaign's first slice runs (``walk-mix``: pct:2, pct:3, pct:5
and random reweighted run by run; farm/portfolio.py); with 2+ jobs a ``bytes`` job runs beside it.
``stress`` runs the same ported code on real threads (``harness.on_threads``), cycling run by run
through the eight settings benchmarks/stress.py tunes from, in a fresh process: its time is from
spawn to the first manifestation; it has no reproducer, so no verified time.

Distinct schedules: each walk strategy runs ``distinct_s`` seconds on each toy race's fixed form
(where no failure stops it), with the distinct-schedule tree (the default) and without it
(``--repeat-schedules``); distinct = runs whose (scenario, decisions) the process had not run.
Peer figures, when recorded in ``benchmarks/peers.json`` (``python -m benchmarks.peers_measure``), are quoted
beside them with the ratio fuzzfarm ÷ peer.
"""

from __future__ import annotations

import importlib
import json
import os
import statistics
import sys
import tempfile
import time

from benchmarks import common as C

SINGLE = ("bytes", "pct:2", "pct:3", "pct:5", "random")
STRATEGIES = ("mix",) + SINGLE
ENGINE_NAME = {"mix": "walk-mix"}
PEERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers.json")


class _Found(Exception):
    pass


def cases(only=None, quick: bool = False) -> list[dict]:
    """[{label, harness (name or Target), example, kinds, bug (SeedBug|None), bytes}]."""
    from fuzzfarm import harness as H
    from fuzzfarm.examples import CASE_NAMES

    out = []
    for name in ("checker", "cluster-builder"):
        out.append({"label": name, "harness": name, "example": None, "bug": C.SEED_BUGS[name], "kinds": None,
                    "bytes": True})
    ex = [n for n in CASE_NAMES if n.startswith("hc")]
    if quick:
        ex = ex[1:2]  # hc03
    out += [example_case(n) for n in ex]
    toys = ("late_cancel",) if quick else ("late_cancel", "shared_map")
    for t in toys:
        out.append({"label": f"toy {t}", "harness": H.Target(t, f"benchmarks.toys.{t}"), "example": None,
                    "bug": None, "kinds": None, "bytes": False})
    if only:
        out = [c for c in out if c["label"] in only or (c["harness"] if isinstance(c["harness"], str) else "") in only]
    return out


def example_case(name: str) -> dict:
    """The case dict of one ``examples`` case (a ``CASE_NAMES`` entry): pinned with
    ``FUZZFARM_EXAMPLE``, a failure of a kind in the case's ``KINDS``."""
    from fuzzfarm.examples import load

    short = name.split("_", 1)[0]
    return {"label": f"examples {short}", "harness": "examples", "example": short, "bug": None,
            "kinds": tuple(load(name).KINDS), "bytes": True}


def _pin(case: dict):
    """Pin the examples case for this process and its children; the harness module, (re)loaded."""
    from fuzzfarm import harness as H
    from fuzzfarm.harness import child as process

    if "FUZZFARM_EXAMPLE" not in process._ENV_ALLOW:  # benchmark only: forward the pin to fuzz children
        process._ENV_ALLOW = tuple(process._ENV_ALLOW) + ("FUZZFARM_EXAMPLE",)
    if case["example"]:
        os.environ["FUZZFARM_EXAMPLE"] = case["example"]
    else:
        os.environ.pop("FUZZFARM_EXAMPLE", None)
    info = case["harness"] if not isinstance(case["harness"], str) else H.get(case["harness"])
    mod = importlib.import_module(info.module)
    return importlib.reload(mod) if case["example"] else mod


def _matches(case: dict, out: dict) -> bool:
    if not out.get("failed"):
        return False
    if case["bug"] is not None:
        return case["bug"].matches_outcome(out)
    if case["kinds"] is not None:
        return out.get("kind") in case["kinds"]
    return True


def first_failure(case: dict, mod, strategy: str, seed: int, budget_s: float) -> dict:
    """Launch the engine; seconds from launch to the first crash of the case's bug."""
    from fuzzfarm.engine import run_fuzz_job
    from fuzzfarm.harness.runone import outcome_of_module

    name = case["harness"] if isinstance(case["harness"], str) else case["harness"].name
    found: dict = {}
    t0 = time.monotonic()

    def on_crash(rep):
        out = outcome_of_module(mod, name, "buggy", rep.data)
        if _matches(case, out):
            found.update(t=time.monotonic() - t0, data=rep.data, kind=out["kind"])
            raise _Found()

    with tempfile.TemporaryDirectory(prefix="fuzzfarm-bench-mix-") as wd:
        try:
            res = run_fuzz_job(harness=case["harness"], variant="buggy", strategy=ENGINE_NAME.get(strategy, strategy),
                               seed=seed, duration_s=budget_s, corpus=[], workdir=wd, on_crash=on_crash,
                               timeout_s=10, rss_limit_mb=2048)
            err = res.error
        except _Found:
            err = None
    if found:
        return {"seed": seed, "found": True, "seconds": round(found["t"], 3), "data": found["data"],
                "kind": found["kind"]}
    return {"seed": seed, "found": False, "seconds": round(time.monotonic() - t0, 3), "error": err}


def verify_time(case: dict, data: bytes, prof_budget: float | None, n: int) -> dict:
    """Minimize + n fresh-process replays, as the farm's triage does; seconds and verdict."""
    from fuzzfarm import collector

    t0 = time.monotonic()
    first = collector.replay(case["harness"], "buggy", data)
    sig = first.get("signature")
    m = collector.minimize(case["harness"], "buggy", data, expected_signature=sig,
                           **({"budget_s": prof_budget} if prof_budget else {}))
    t_min = time.monotonic() - t0
    v = collector.verify(case["harness"], "buggy", m.data, n=n, expected_signature=sig)
    return {"minimize_s": round(t_min, 3), "verify_s": round(time.monotonic() - t0 - t_min, 3),
            "reproducible": bool(v.reproducible), "n": n, "size": f"{len(data)} -> {len(m.data)}"}


# ---- stress, from spawn ----------------------------------------------------------------------
def _stress_child(spec: dict) -> int:
    sys.setswitchinterval(1e-6)
    import random

    from benchmarks.stress import CANDIDATES, _wall_timeout
    from fuzzfarm import harness as H
    from fuzzfarm.engine.walk import EVENT_LENGTHS

    info = H.Target(spec["name"], spec["module"]) if spec.get("module") else H.get(spec["name"])
    mod = info.load()
    bug = C.SEED_BUGS.get(spec["name"]) if spec.get("seed_bug") else None
    kinds = spec.get("kinds")
    events = random.Random(f"events:{spec['seed'] * 1_000_003}")
    rng = random.Random(f"stress:{spec['seed']}")
    start = time.perf_counter()
    runs = 0
    while time.perf_counter() - start < spec["budget_s"]:
        jitter, yield_p, scale = CANDIDATES[runs % len(CANDIDATES)]
        data = events.randbytes(events.choice(EVENT_LENGTHS))
        runs += 1
        try:
            with H.on_threads(seed=rng.getrandbits(32), jitter_s=jitter, yield_p=yield_p, time_scale=scale,
                              wall_timeout_s=_wall_timeout(scale)):
                f = mod.execute(data, "buggy").failure
        except Exception:  # noqa: BLE001 - a harness decoding error
            f = None
        if f is None:
            continue
        if (bug.matches_failure(f) if bug else (f.kind in kinds if kinds else True)):
            print(json.dumps({"found": True, "runs": runs}), flush=True)
            return 0
    print(json.dumps({"found": False, "runs": runs}), flush=True)
    return 0


def stress_first(case: dict, seed: int, budget_s: float) -> dict:
    info = case["harness"]
    spec = {"name": info if isinstance(info, str) else info.name,
            "module": None if isinstance(info, str) else info.module, "seed": seed, "budget_s": budget_s,
            "seed_bug": case["bug"] is not None, "kinds": list(case["kinds"]) if case["kinds"] else None}
    extra = {"FUZZFARM_EXAMPLE": case["example"]} if case["example"] else {}
    t0 = time.monotonic()
    rc, lines = C.run_streaming([C.PY, "-m", "benchmarks.portfolio", "--stress-child", json.dumps(spec)],
                                env=C.child_env(extra), cwd=C.ROOT, timeout=budget_s + 60)
    for t, ln in lines:
        if ln.startswith("{"):
            r = json.loads(ln)
            return {"seed": seed, "found": r["found"], "runs": r["runs"],
                    "seconds": round((t if r["found"] else time.monotonic()) - t0, 3)}
    return {"seed": seed, "found": False, "seconds": round(time.monotonic() - t0, 3),
            "error": " | ".join(ln for _, ln in lines[-3:])}


# ---- distinct schedules/s ----------------------------------------------------------------------
def distinct_rate(toy: str, strategy: str, seconds: float, fresh: bool) -> dict:
    with tempfile.TemporaryDirectory(prefix="fuzzfarm-bench-distinct-") as wd:
        argv = [C.PY, "-m", "fuzzfarm.engine.walk", toy, "fixed", f"--strategy={ENGINE_NAME.get(strategy, strategy)}",
                "--seed=1", f"--max-time={seconds}", f"--artifacts={wd}", f"--module=benchmarks.toys.{toy}",
                *([] if fresh else ["--repeat-schedules"])]
        rc, lines = C.run_streaming(argv, env=C.child_env({"FUZZFARM_VARIANT": "fixed"}), cwd=wd,
                                    timeout=seconds + 60)
    final = {}
    for _, ln in lines:
        if ln.startswith("{"):
            final = json.loads(ln)
    execs, distinct = int(final.get("execs", 0)), int(final.get("distinct", 0))
    return {"toy": toy, "strategy": strategy, "fresh": fresh, "seconds": seconds, "execs": execs,
            "distinct": distinct, "distinct_per_s": round(distinct / seconds, 1),
            "distinct_share": round(distinct / max(1, execs), 4)}


def with_peer(d: dict, peers: dict) -> dict:
    """``d`` (a distinct_rate row) with the recorded peer figure for its toy and fuzzfarm ÷ peer."""
    p = peers.get(d["toy"])
    if p and p.get("distinct_per_s"):
        d["peer"] = p.get("peer", "peer")
        d["peer_distinct_per_s"] = p["distinct_per_s"]
        d["ratio_vs_peer"] = round(d["distinct_per_s"] / p["distinct_per_s"], 2)
    return d


def _peers() -> dict:
    if not os.path.exists(PEERS):
        return {}
    with open(PEERS) as f:
        return json.load(f)


# ---- the benchmark -----------------------------------------------------------------------------
def _median(rs: list[dict]) -> tuple[float, bool]:
    m = C.med_max([(r["seconds"], not r["found"]) for r in rs])
    return m[0], m[1]


def verified_over_seeds(per: list[dict]) -> dict:
    """A strategy's launch -> verified figure from its per-seed records (those that found carry
    ``verify`` and ``verified_s``): the median over seeds, where a seed that found nothing or whose
    input did not replay N/N counts as not verified (censored, ordered last); the row's minimize /
    replay split is the found seed nearest that median. Pure, so the rule is tested without fuzzing."""
    vmed, vcens = _median([{"seconds": p.get("verified_s", p["seconds"]),
                            "found": p["found"] and p["verify"]["reproducible"]} for p in per])
    mid = min((p for p in per if p["found"]), key=lambda p: abs(p["verified_s"] - vmed))
    return {"verify": mid["verify"], "verified_s": round(vmed, 3) if not vcens else None,
            "reproducible": sum(bool(p.get("verify", {}).get("reproducible")) for p in per)}


def measure(prof: C.Profile, only=None, log=None) -> dict:
    log = log or (lambda m: None)
    seeds = (1,) if prof.quick else (1, 2, 3)
    budget = 10.0 if prof.quick else 20.0
    stress_budget = 5.0 if prof.quick else 10.0  # "> x" past it: enough to say mix <= stress
    verify_n = 2 if prof.quick else 10
    min_budget = 2.0 if prof.quick else 20.0
    # quick (CI smoke): only the default is verified; full: every strategy
    verified = ("mix",) if prof.quick else STRATEGIES
    out = []
    for case in cases(only, prof.quick):
        mod = _pin(case)
        rec = {"case": case["label"], "strategies": {}}
        for strategy in STRATEGIES:
            if strategy == "bytes" and not case["bytes"]:
                continue
            log(f"portfolio: {case['label']} {strategy}")
            per = [first_failure(case, mod, strategy, s, budget) for s in seeds]
            med, cens = _median(per)
            r = {"first_failure_s": med, "first_failure_censored": cens, "found": sum(p["found"] for p in per),
                 "of": len(per)}
            if strategy in verified and any(p["found"] for p in per):
                # Each seed's own input is minimized and verified; its launch -> verified time is its
                # first failure + that, and the figure is the median over seeds (a seed that found
                # nothing, or whose input did not replay N/N, counts as not verified, ordered last):
                # one seed's slow minimize or verify cannot decide a case alone.
                for p in per:
                    if p["found"]:
                        p["verify"] = verify_time(case, p["data"], min_budget, verify_n)
                        p["verified_s"] = round(p["seconds"] + p["verify"]["minimize_s"] + p["verify"]["verify_s"], 3)
                r.update(verified_over_seeds(per))
            r["per_seed"] = [{k: v for k, v in p.items() if k != "data"} for p in per]
            rec["strategies"][strategy] = r
        log(f"portfolio: {case['label']} stress")
        per = [stress_first(case, s, stress_budget) for s in seeds]
        med, cens = _median(per)
        rec["stress"] = {"first_failure_s": med, "first_failure_censored": cens, "found": sum(p["found"] for p in per),
                         "of": len(per), "per_seed": per}
        rec.update(_ratios(rec))
        out.append(rec)
    os.environ.pop("FUZZFARM_EXAMPLE", None)
    distinct = []
    peers = _peers()
    for toy in ("late_cancel",) if prof.quick else ("late_cancel", "shared_map"):
        for strategy in ("mix", "pct:3", "random"):
            for fresh in (True, False):
                log(f"portfolio: distinct schedules {toy} {strategy} {'tree' if fresh else 'no tree'}")
                distinct.append(with_peer(distinct_rate(toy, strategy, 1.0 if prof.quick else 5.0, fresh), peers))
    return {"cases": out, "distinct": distinct, "seeds": list(seeds), "budget_s": budget, "verify_n": verify_n,
            "minimize_budget_s": min_budget, "verified_strategies": list(verified), "stress_budget_s": stress_budget,
            "peers_file": os.path.relpath(PEERS, C.ROOT), "peers_recorded": bool(peers)}


def _r(x) -> str:
    """A ratio with two decimals ('-' when not measured)."""
    return "-" if x is None else f"{x:.2f}"


def _ratios(rec: dict) -> dict:
    """The mix against the best single strategy (chosen after the fact, by verified time and by
    first-failure time) and against stress (first failure)."""
    mix = rec["strategies"].get("mix", {})
    singles = {s: r for s, r in rec["strategies"].items() if s != "mix"}
    res: dict = {}
    ver = {s: r for s, r in singles.items() if r.get("verified_s") is not None}
    if ver:
        best = min(ver, key=lambda s: ver[s]["verified_s"])
        res["best_single"] = best
        if mix.get("verified_s") is not None:
            res["mix_over_best_verified"] = round(mix["verified_s"] / ver[best]["verified_s"], 3)
    ff = {s: r for s, r in singles.items() if not r["first_failure_censored"]}
    if ff:
        best = min(ff, key=lambda s: ff[s]["first_failure_s"])
        res["best_single_first_failure"] = best
        if not mix.get("first_failure_censored", True):
            res["mix_over_best_first_failure"] = round(mix["first_failure_s"] / ff[best]["first_failure_s"], 3)
    st = rec["stress"]
    if mix and not mix.get("first_failure_censored", True):
        res["mix_over_stress_first_failure"] = (C.ratio_text(mix["first_failure_s"], False, st["first_failure_s"],
                                                             st["first_failure_censored"]))
    return res


def headlines(data: dict) -> list[str]:
    """Sentences for the top of docs/BENCHMARKS.md: the mix first, then best single strategy."""
    out = []
    for r in data.get("cases", []):
        mix = r["strategies"].get("mix", {})
        st = r["stress"]
        line = (f"{r['case']}: default `mix`, launch → first failure "
                f"{C.fmt_censored(mix.get('first_failure_s'), mix.get('first_failure_censored', True), ' s')}, "
                f"launch → verified bucket {C.fmt_num(mix.get('verified_s'))} s "
                f"({mix.get('found', 0)}/{mix.get('of', 0)} seeds)")
        line += (f"; Python-thread stress (the older baseline: the Python port on OS threads), launch → first "
                 f"manifestation {C.fmt_censored(st['first_failure_s'], st['first_failure_censored'], ' s')} "
                 f"({st['found']}/{st['of']}); mix ÷ Python-thread stress (first failure, s/s) "
                 f"{r.get('mix_over_stress_first_failure', '-')}")
        out.append(line + ".")
    for r in data.get("cases", []):
        b, bf = r.get("best_single"), r.get("best_single_first_failure")
        if not (b or bf):
            continue
        parts = []
        if b:
            parts.append(f"by launch → verified `{b}` {C.fmt_num(r['strategies'][b]['verified_s'])} s, "
                         f"mix ÷ best single (verified, s/s) {_r(r.get('mix_over_best_verified'))}")
        if bf:
            parts.append(f"by launch → first failure `{bf}` {C.fmt_num(r['strategies'][bf]['first_failure_s'])} s, "
                         f"mix ÷ best single (first failure, s/s) {_r(r.get('mix_over_best_first_failure'))}")
        out.append(f"{r['case']}: best single strategy (chosen after the fact) " + "; ".join(parts) + ".")
    return out


def distinct_headlines(data: dict) -> list[str]:
    out = []
    for toy in sorted({d["toy"] for d in data.get("distinct", [])}):
        ds = [d for d in data["distinct"] if d["toy"] == toy]
        best = max((d for d in ds if d["fresh"]), key=lambda d: d["distinct_per_s"])
        plain = next((d for d in ds if not d["fresh"] and d["strategy"] == best["strategy"]), None)
        line = (f"toy {toy} (fixed): distinct schedules/s, best walk `{best['strategy']}` "
                f"{C.fmt_num(best['distinct_per_s'])} ({100 * best['distinct_share']:.0f}% of its runs distinct)")
        if plain:
            line += (f"; the same without the distinct-schedule tree {C.fmt_num(plain['distinct_per_s'])} "
                     f"({100 * plain['distinct_share']:.0f}%)")
        if "peer_distinct_per_s" in best:
            line += f"; ÷ peer {best['peer']} ({C.fmt_num(best['peer_distinct_per_s'])}/s): {best['ratio_vs_peer']}"
        else:
            line += f"; no peer figure recorded ({data.get('peers_file')}), no ratio"
        out.append(line + ".")
    return out


def rows(data: dict) -> list[list[str]]:
    out = []
    for r in data["cases"]:
        for s, x in r["strategies"].items():
            label = f"{r['case']} {s}" + (" (default)" if s == "mix" else "")
            val = (f"first failure {C.fmt_censored(x['first_failure_s'], x['first_failure_censored'], ' s')} "
                   f"({x['found']}/{x['of']})")
            if x.get("verify"):
                v = x["verify"]
                val += (f"; verified {C.fmt_num(x.get('verified_s'))} s (minimize {C.fmt_num(v['minimize_s'])} s "
                        f"{v['size']} bytes + {v['n']} fresh replays {C.fmt_num(v['verify_s'])} s, "
                        f"{'reproducible' if v['reproducible'] else 'NOT reproducible'}; "
                        f"{x.get('reproducible', 0)}/{x['found']} seeds' inputs reproducible)")
            out.append([label, "launch → first failure / verified bucket (median)", val])
        st = r["stress"]
        out.append([f"{r['case']} stress", "spawn → first manifestation (median)",
                    f"{C.fmt_censored(st['first_failure_s'], st['first_failure_censored'], ' s')} ({st['found']}/{st['of']})"])
        out.append([r["case"], "mix ÷ best single: verified s/s, first failure s/s; mix ÷ stress: first failure s/s",
                    f"{_r(r.get('mix_over_best_verified'))} (best: {r.get('best_single', '-')}); "
                    f"{_r(r.get('mix_over_best_first_failure'))} (best: {r.get('best_single_first_failure', '-')}); "
                    f"{r.get('mix_over_stress_first_failure', '-')}"])
    for d in data["distinct"]:
        peer = (f"; ÷ {d['peer']} {C.fmt_num(d['peer_distinct_per_s'])}/s = {d['ratio_vs_peer']}"
                if "peer_distinct_per_s" in d else "")
        out.append([f"toy {d['toy']}/fixed {d['strategy']}{'' if d['fresh'] else ' --repeat-schedules'}",
                    "distinct schedules/s (share of runs)",
                    f"{C.fmt_num(d['distinct_per_s'])} ({100 * d['distinct_share']:.0f}% of {C.fmt_num(d['execs'])} "
                    f"runs){peer}"])
    return out


def run(prof: C.Profile, only=None, log=None) -> dict:
    t0 = time.monotonic()
    data = measure(prof, only, log)
    settings = {"seeds": data["seeds"], "budget_per_seed": f"{data['budget_s']:g} s (stress {data['stress_budget_s']:g} s)",
                "verified": f"in-process: first failure + collector.minimize (budget {data['minimize_budget_s']:g} s) + "
                            f"{data['verify_n']} fresh-process replays, for {', '.join(data['verified_strategies'])}",
                "mix": "a 1-job mix campaign's first slice (walk-mix: pct:2, pct:3, pct:5, random)"}
    notes = ["every time includes the fuzz process's start-up (launch = the engine call, as a farm slice makes it)",
             "'> x' = not found within the budget; a ratio's numerator and denominator are named beside it",
             "stress cycles through benchmarks/stress.py's eight settings run by run (no tuning pass)"]
    if not data["peers_recorded"]:
        notes.append(f"no peer figures in {data['peers_file']}: distinct schedules/s are reported without a ratio")
    return C.section("portfolio", "Default mix vs single strategies vs stress, launch to verified bucket", prof,
                     settings, rows(data), data, notes, t0)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--stress-child":
        raise SystemExit(_stress_child(json.loads(sys.argv[2])))
    raise SystemExit(C.standalone("portfolio", __doc__, run))
