#!/usr/bin/env python3
"""Run the whole benchmark suite, print one table, write docs/BENCHMARKS.md.

    python -m benchmarks [--quick] [--json] [--harness NAME] [--only a,b] [--doc PATH | --no-doc]
    python benchmarks/run_all.py ...          (the same)

Order: go_stress (fuzzfarm ÷ real-Go stress: each bug's Go twin under ``go test -race``, fresh
processes and ``-count``, beside the default mix's launch -> first failure / verified reproducer)
-> portfolio (the default mix against every single strategy and stress, launch to verified
bucket; distinct schedules/s) -> time_to_bug -> stress (ratio against the time_to_bug of this run) -> throughput ->
minimization (the inputs time_to_bug found) -> farm_scaling -> end_to_end -> redis_traffic (the
campaigns of farm_scaling and end_to_end) -> startup (fresh fuzz child processes) -> hard_cases (the
depth-3 examples against every strategy and stress). Every comparison is within this one run.

The full profile writes docs/BENCHMARKS.md; ``--quick`` (CI) writes it only when ``--doc`` is
given. Exit code 1 when a benchmark failed (its section says why; the others still run).
"""

from __future__ import annotations

import datetime
import json
import os
import sys
import time
import traceback

if __package__ in (None, ""):  # python benchmarks/run_all.py
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks import common as C  # noqa: E402

SECTIONS = ("go_stress", "portfolio", "time_to_bug", "stress", "throughput", "minimization", "farm_scaling", "end_to_end",
            "redis_traffic", "startup", "hard_cases", "triage_pipeline")
DOC = os.path.join(C.ROOT, "docs", "BENCHMARKS.md")


def _log(msg: str) -> None:
    sys.stderr.write(f"[{time.strftime('%H:%M:%S')}] {msg}\n")
    sys.stderr.flush()


def _failed(name: str, prof: C.Profile, t0: float, exc: BaseException) -> dict:
    tb = traceback.format_exception(exc)
    _log(f"{name} FAILED: {type(exc).__name__}: {exc}")
    res = C.section(name, name, prof, {}, [["-", "error", f"{type(exc).__name__}: {str(exc)[:300]}"]],
                    {"error": f"{type(exc).__name__}: {exc}", "traceback": "".join(tb)[-4000:]}, [], t0)
    return {**res, "failed": True}


def run_suite(prof: C.Profile, only_harness=None, sections=SECTIONS) -> tuple[list[dict], dict]:
    from benchmarks import (end_to_end, farm_scaling, hard_cases, minimization, portfolio, redis_traffic, startup,
                            stress, throughput, time_to_bug)
    out: list[dict] = []
    ctx: dict = {}
    meta = {"machine": C.machine(), "started": datetime.datetime.now().astimezone().isoformat(timespec="seconds")}
    busy0, total0 = C.system_busy()
    own0 = os.times()
    t_suite = time.monotonic()

    def step(name, fn):
        if name not in sections:
            return None
        _log(f"== {name}")
        t0 = time.monotonic()
        try:
            res = fn()
        except Exception as e:  # noqa: BLE001 - keep going; the section records the failure
            res = _failed(name, prof, t0, e)
        out.append(res)
        _log(f"== {name} done in {res['wall_s']:g} s")
        return res

    def ttb():
        res, ctx["inputs"] = time_to_bug.run_with_inputs(prof, only_harness, _log)
        ctx["ttb"] = res["data"]
        return res

    from benchmarks import go_stress
    step("go_stress", lambda: go_stress.run(prof, only_harness, _log))
    step("portfolio", lambda: portfolio.run(prof, only_harness, _log))
    step("time_to_bug", ttb)
    step("stress", lambda: stress.run(prof, only_harness, _log, ttb=ctx.get("ttb") or {"buggy": []}))
    step("throughput", lambda: throughput.run(prof, only_harness, _log))
    step("minimization", lambda: minimization.run(prof, only_harness, _log, inputs=ctx.get("inputs", [])))

    def scaling():
        res = farm_scaling.run(prof, only_harness, _log)
        ctx["scaling"] = res["data"]
        return res

    step("farm_scaling", scaling)

    def e2e():
        res = end_to_end.run(prof, only_harness, _log, ttb=ctx.get("ttb"))
        ctx["e2e"] = res["data"]
        return res

    step("end_to_end", e2e)
    step("redis_traffic", lambda: redis_traffic.run(prof, only_harness, _log, scaling=ctx.get("scaling") or {},
                                                    e2e=ctx.get("e2e")))
    step("startup", lambda: startup.run(prof, only_harness, _log))
    # hard cases take case ids, not harness names: --harness narrows the suite to harnesses only
    step("hard_cases", lambda: hard_cases.run(prof, None, _log))
    from benchmarks import triage_pipeline
    step("triage_pipeline", lambda: triage_pipeline.run(prof, only_harness, _log))
    busy1, total1 = C.system_busy()
    own1 = os.times()
    wall = time.monotonic() - t_suite
    own_cpu = (own1.user + own1.system + own1.children_user + own1.children_system) - \
              (own0.user + own0.system + own0.children_user + own0.children_system)
    busy = busy1 - busy0
    meta.update({
        "finished": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "wall_s": round(wall, 1), "loadavg_end": [round(x, 2) for x in os.getloadavg()],
        "machine_busy_share": round(busy / max(1e-9, total1 - total0), 3),
        "suite_cpu_s": round(own_cpu, 1), "other_cpu_s": round(max(0.0, busy - own_cpu), 1),
        "other_cores_avg": round(max(0.0, busy - own_cpu) / max(1e-9, wall), 2)})
    return out, meta


# ---- docs/BENCHMARKS.md ---------------------------------------------------------------------
def _extra_ttb(d: dict) -> list[str]:
    rows = []
    for r in d.get("buggy", []):
        seeds = "; ".join(f"{s['seed']}: {'' if s['found'] else '> '}{s['runs']} / {s['seconds']:.3g} s"
                          for s in r["per_seed"])
        rows.append([f"{r['harness']}/{r['variant']} {r['strategy']}", seeds])
    return [C.md_table(["case", "per seed: runs / seconds to the seed bug ('>' = not found in the budget)"], rows)]


def _extra_stress(d: dict) -> list[str]:
    rows = []
    for h in d.get("harnesses", []):
        for t in h["tuning"]:
            rows.append([h["harness"],
                         f"jitter_s={t['jitter_s']:g} yield_p={t['yield_p']:g} time_scale={t['time_scale']:g}",
                         str(t["runs"]), str(t["manifestations"]),
                         f"{t['manifestations'] / max(1e-9, t['seconds']):.3g}"])
    return ["Tuning (seed 1000; the best manifestations/s is used for the measurement):", "",
            C.md_table(["harness", "setting", "runs", "manifestations", "manifestations/s"], rows)]


def _extra_min(d: dict) -> list[str]:
    rows = []
    for b in d.get("buckets", []):
        for r in b["minimized"]:
            rows.append([f"{b['harness']}/{b['variant']} {b['label']}", f"{r['strategy']} seed {r['seed']}",
                         f"{r['size_before']} → {r['size_after']}",
                         f"{r['preemptions_before']} → {r['preemptions_after']}",
                         str(r["runs"]), f"{r['seconds']:.3g}", r["stopped"]])
    return [C.md_table(["bucket", "input from", "bytes", "preemptions", "runs", "seconds", "stopped because"], rows)]


def _extra_scaling(d: dict) -> list[str]:
    if "bare" not in d:
        return []
    cols = [("bare", d["bare"])] + [(f"farm, {f['c']} worker process(es)", f) for f in d.get("farms", [])]
    cats = sorted({k for _, c in cols for k in c["cpu"]["by_category_s"]})
    rows = [[cat] + [f"{c['cpu']['by_category_s'].get(cat, 0):.2f}" for _, c in cols] for cat in cats]
    rows.append(["total CPU s"] + [f"{c['cpu']['total_s']:.2f}" for _, c in cols])
    rows.append(["execs"] + [str(c["execs"]) for _, c in cols])
    rows.append(["wall s (farm: submit → settled)"] + [f"{c['wall_s']:g}" for _, c in cols])
    return ["CPU seconds by process category:", "", C.md_table(["category"] + [n for n, _ in cols], rows)]


def _extra_redis(d: dict) -> list[str]:
    rows = [[c["campaign"], f"{C.fmt_num(c['commands_per_s'])}", f"{c['redis_cpu_s']:.2f}",
             ", ".join(f"{k} {v}" for k, v in c["top_commands"])] for c in d.get("campaigns", [])]
    return [C.md_table(["campaign", "commands/s (all workers)", "redis-server CPU s", "top commands (calls)"], rows)]


EXTRAS = {"time_to_bug": _extra_ttb, "stress": _extra_stress, "minimization": _extra_min,
          "farm_scaling": _extra_scaling, "redis_traffic": _extra_redis}


def farm_efficiency_headlines(sc: dict) -> list[str]:
    """Per worker count: farm efficiency in execs (issue 33's goal, >= 0.9 at 2 workers: the farm's
    execs/s / those of as many bare atheris processes, same seeds and corpus), side by side (the
    farm and its bare twins at the same time) first when measured, then against bare twins run
    after the farm (the sequential measure: the machine's load drifts between the two windows);
    then the CPU figure (a) and how far the execs go beyond one bare process."""
    def r(x) -> str:
        return "-" if x is None else f"{x:.2f}"
    beside = {f["c"]: (f.get("efficiency") or {}) for f in sc.get("beside", []) if f.get("bare_beside")}
    out = []
    for f in sc.get("farms", []):
        e, b = f.get("efficiency") or {}, beside.get(f["c"])
        execs = (f"farm efficiency in execs {r(b.get('execs'))} with {f['c']} bare atheris process(es) at the same "
                 f"time (goal >= 0.9 at 2), {r(e.get('execs'))} against bare ones run after it" if b else
                 f"farm efficiency in execs {r(e.get('execs'))} against {f['c']} bare atheris process(es) run after it "
                 f"(goal >= 0.9 at 2)")
        out.append(f"farm with {f['c']} worker process(es): {execs} (execs/s ÷ execs/s, same seeds and corpus); "
                   f"CPU efficiency {r(e.get('cpu'))} (target CPU ÷ fuzz-worker CPU); "
                   f"x{f['execs_ratio_vs_bare']:.2f} the execs of one bare process for the same fuzzing time; "
                   f"{100 * (f['cpu']['outside_share'] or 0):.0f}% of the CPU outside the fuzz target.")
    return out


def headlines(sections: list[dict]) -> list[str]:
    """A few computed sentences (no figure is typed in: all come from this run's data)."""
    from benchmarks import go_stress, portfolio

    by = {s["section"]: s for s in sections if not s.get("failed")}
    pf = by.get("portfolio", {}).get("data", {})
    out = go_stress.headlines(by.get("go_stress", {}).get("data", {}))
    out += portfolio.headlines(pf) + portfolio.distinct_headlines(pf)
    ttb = by.get("time_to_bug", {}).get("data", {})
    stress = {h["harness"]: h for h in by.get("stress", {}).get("data", {}).get("harnesses", [])}
    for h in sorted({r["harness"] for r in ttb.get("buggy", [])}):
        rs = [r for r in ttb["buggy"] if r["harness"] == h and r["found"]]
        if not rs:
            out.append(f"{h}: the seed bug was not found by any strategy within the budget.")
            continue
        best = min(rs, key=lambda r: (r["seconds_median_censored"], r["seconds_median"]))
        line = (f"{h}: best single strategy chosen after the fact (search seconds, process start-up "
                f"excluded) `{best['strategy']}`, median "
                f"{C.fmt_censored(best['seconds_median'], best['seconds_median_censored'], ' s')} / "
                f"{C.fmt_censored(best['runs_median'], best['runs_median_censored'])} runs "
                f"({best['found']}/{best['of']} seeds)")
        st = stress.get(h)
        if st:
            ratio = st["ratios"].get(best["strategy"], {}).get("ratio", "-")
            line += (f"; the Python-thread stress test (older baseline): first manifestation after a median "
                     f"{C.fmt_censored(st['first_median_s'], st['first_median_censored'], ' s')}, "
                     f"1 in {C.fmt_num(st['runs'] / max(1, st['manifestations']))} runs; "
                     f"ratio ({best['strategy']} median search s, start-up excluded) ÷ (stress median s to the "
                     f"first manifestation, thread start-up included) {ratio}")
        out.append(line + ".")
    out += farm_efficiency_headlines(by.get("farm_scaling", {}).get("data", {}))
    from benchmarks.end_to_end import MILESTONES

    label = dict(MILESTONES)  # m["verified"] is the end of triage, not the verify step: its own label
    for h in by.get("end_to_end", {}).get("data", {}).get("harnesses", []):
        m = h["marks"]
        if "verified" in m:
            out.append(f"{h['harness']} end to end (`{h['strategy']}`, {h['jobs']} job(s)): first downloadable "
                       f"reproducer {m.get('downloadable', '-')} s after `fuzzfarm submit`, "
                       f"{label['fix_checked']} {m.get('fix_checked', '-')} s, "
                       f"{label['verified']} {m['verified']} s, "
                       f"downloaded and replayed {m.get('replayed', '-')} s.")
        else:
            out.append(f"{h['harness']} end to end (`{h['strategy']}`): no verified reproducer ({h.get('error')}).")
    rt = by.get("redis_traffic", {}).get("data", {}).get("campaigns", [])
    q = [c["workers_per_redis_quoted"] for c in rt if c.get("workers_per_redis_quoted")]
    if q:
        out.append(f"Redis: {C.fmt_num(min(c['commands_per_s_per_worker'] for c in rt))}–"
                   f"{C.fmt_num(max(c['commands_per_s_per_worker'] for c in rt))} commands/s per worker; one Redis at "
                   f"half a core would serve about {C.fmt_num(min(q))} workers (the most conservative estimate).")
    return out


# Sections that other commands write into the doc between ``<!-- name -->`` / ``<!-- /name -->``
# markers, kept when the suite rewrites the file: they measure what the suite does not run.
KEPT = ("race_cost", "dfs_bench")


def _kept_sections(path: str) -> list[str]:
    """The marked sections of ``KEPT`` found in the current doc, in that order."""
    if not os.path.exists(path):
        return []
    text = open(path).read()
    out: list[str] = []
    for name in KEPT:
        begin, end = f"<!-- {name} -->", f"<!-- /{name} -->"
        if begin in text and end in text:
            out += [text[text.index(begin):text.index(end) + len(end)], ""]
    return out


def write_doc(path: str, sections: list[dict], meta: dict, command: str, prof: C.Profile) -> None:
    m = meta["machine"]
    parts = [
        "# fuzzfarm benchmarks",
        "",
        f"Latest figures of the benchmark suite (issue 7), produced by `{command}` "
        f"({'QUICK profile: tiny budgets, figures are smoke-level only' if prof.quick else 'full profile'}), "
        f"started {meta['started']}, {meta['wall_s']:g} s wall. Every number below was measured in that one run; "
        "nothing is hard-coded. **Absolute times are context only** (a shared 2-core machine, see the load "
        "below); the comparisons are the ratios, measured side by side in the same run.",
        "",
        "## Machine",
        "",
        C.md_table(["", ""], [
            ["CPU", f"{m['cpu_model']} — nproc {m['nproc']}"],
            ["memory", f"{m['mem_total_gb']} GB"],
            ["kernel / Python", f"{m['kernel']} / Python {m['python']}"],
            ["atheris / celery / kombu / redis-py / greenlet", f"{m['atheris']} / {m['celery']} / {m['kombu']} / "
                                                               f"{m['redis_py']} / {m['greenlet']}"],
            ["redis-server", m["redis_server"]],
            ["fuzzfarm commit", m["fuzzfarm_commit"]],
            ["load average (1/5/15 min) at start → end", f"{m['loadavg_start']} → {meta['loadavg_end']}"],
            ["machine busy during the run", f"{100 * meta['machine_busy_share']:.0f}% of all cores; this suite "
                                            f"{meta['suite_cpu_s']:g} CPU s, other processes {meta['other_cpu_s']:g} "
                                            f"CPU s (≈ {meta['other_cores_avg']:g} cores on average)"],
        ]),
        "",
        "## Headlines (computed from the figures below)",
        "",
        "fuzzfarm ÷ real-Go stress first (each bug's Go twin under `go test -race`, the stress a Go developer "
        "runs, against the default `mix` from launch), then the default strategy (`mix`) timed from launch (fuzz "
        "process start-up included) to a verified bucket beside the Python-thread stress (the older baseline, "
        "labelled); best-single-strategy figures after it, labelled as chosen after the fact.",
        "",
        *[f"- {h}" for h in headlines(sections)],
        "",
        "## All figures",
        "",
        "The same table `python -m benchmarks` prints (`--json`: the same content, plus every per-seed number).",
        "",
        C.md_table(["benchmark", "case", "figure", "value"],
                  [[s["section"] if i == 0 else "", *r] for s in sections for i, r in enumerate(s["rows"])]),
        "",
        "How to read: `> x` means not found within the budget (x is what was spent, a lower bound); a ratio "
        "`< r` / `> r` is bounded by such a value. The stress ratio is fuzzfarm ÷ stress seconds to the first "
        "seed-bug crash (< 1: fuzzfarm is faster).",
        "",
        "## Per benchmark: settings, method notes, details",
        "",
    ]
    for s in sections:
        # a stable anchor per section (docs cite e.g. docs/BENCHMARKS.md#startup)
        parts += [f'<a id="{s["section"]}"></a>', "", f"### {s['title']} (`benchmarks/{s['section']}.py`, {s['wall_s']:g} s)", ""]
        if s.get("failed"):
            parts += ["**This benchmark failed in this run:**", "", "```", s["data"].get("traceback", "")[-2000:],
                      "```", ""]
            continue
        if s.get("settings"):
            parts += ["Settings: " + "; ".join(f"{k}: {json.dumps(v) if not isinstance(v, str) else v}"
                                              for k, v in s["settings"].items()), ""]
        for n in s.get("notes", []):
            parts.append(f"- {n}")
        if s.get("notes"):
            parts.append("")
        extra = EXTRAS.get(s["section"])
        if extra:
            parts += extra(s["data"]) + [""]
    parts += _kept_sections(path)  # e.g. benchmarks/race_cost.py's section, written by that command
    parts += ["## Reproduce", "", f"    {command}", "",
              "Each benchmark also runs alone: `python -m benchmarks.<name> [--quick] [--json]`; "
              "`python -m benchmarks --quick` is the CI smoke run (tests/test_benchmarks_smoke.py).", ""]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(parts))
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    C.exit_on_sigterm()
    ap = C.arg_parser("python -m benchmarks", __doc__)
    ap.add_argument("--only", help=f"Comma-separated subset of: {', '.join(SECTIONS)}.")
    ap.add_argument("--doc", help="Write the Markdown report here (default docs/BENCHMARKS.md for the full profile).")
    ap.add_argument("--no-doc", action="store_true", help="Do not write the Markdown report.")
    a = ap.parse_args(argv)
    prof = C.profile(a.quick)
    sections = tuple(s.strip() for s in a.only.split(",")) if a.only else SECTIONS
    bad = [s for s in sections if s not in SECTIONS]
    if bad:
        ap.error(f"unknown section(s) {', '.join(bad)}; choose from {', '.join(SECTIONS)}")
    command = " ".join(["python -m benchmarks", *argv])
    _log(f"fuzzfarm benchmark suite, {prof.name} profile: {', '.join(sections)}")
    results, meta = run_suite(prof, a.harness, sections)
    meta["command"] = command
    meta["profile"] = prof.name
    doc = None if a.no_doc else (a.doc or (None if prof.quick else DOC))
    if doc:
        write_doc(doc, results, meta, command, prof)
        meta["doc"] = os.path.relpath(doc, C.ROOT)
        _log(f"wrote {meta['doc']}")
    C.print_sections(results, as_json=a.json, title=f"fuzzfarm benchmarks ({prof.name}"
                     f"{': QUICK, smoke-level budgets' if prof.quick else ''})", extra=meta)
    return 1 if any(s.get("failed") for s in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
