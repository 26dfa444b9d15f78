#!/usr/bin/env python3
"""Run the whole benchmark suite, print one table, write docs/BENCHMARKS.md.

    python -m benchmarks [--quick] [--json] [--harness NAME] [--only a,b] [--doc PATH | --no-doc]
    python benchmarks/run_all.py ...          (the same)

Order: time_to_bug -> stress (ratio against the time_to_bug of this run) -> throughput ->
minimization (the inputs time_to_bug found) -> farm_scaling -> end_to_end -> redis_traffic (the
campaigns of farm_scaling and end_to_end). Every comparison is within this one run.

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

SECTIONS = ("time_to_bug", "stress", "throughput", "minimization", "farm_scaling", "end_to_end", "redis_traffic")
DOC = os.path.join(C.ROOT, "docs", "BENCHMARKS.md")


def _log(msg: str) -> None:
    sys.stderr.write(f"[{time.strftime('%H:%M:%S')}] {msg}\n")
    sys.stderr.flush()


def _failed(name: str, prof: C.Profile, t0: float, exc: BaseException) -> dict:
    tb = traceback.format_exception(exc)
    _log(f"{name} FAILED: {type(exc).__name__}: {exc}")
    return C.section(name, name, prof, {}, [["-", "error", f"{type(exc).__name__}: {str(exc)[:300]}"]],
                     {"error": f"{type(exc).__name__}: {exc}", "traceback": "".join(tb)[-4000:]}, [], t0) | {"failed": True}


def run_suite(prof: C.Profile, only_harness=None, sections=SECTIONS) -> tuple[list[dict], dict]:
    from benchmarks import (end_to_end, farm_scaling, minimization, redis_traffic, stress, throughput,
                            time_to_bug)
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
def _md_escape(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def _md_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_md_escape(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def _ttb_seed_table(data: dict) -> str:
    rows = []
    for r in data.get("buggy", []):
        seeds = "; ".join(f"{s['seed']}: {'' if s['found'] else '> '}{s['runs']} runs / {s['seconds']:.3g} s"
                          for s in r["per_seed"])
        rows.append([f"{r['harness']}/{r['variant']} {r['strategy']}", seeds])
    return _md_table(["case", "per seed: runs / seconds to the seed bug ('>' = not found in the budget)"], rows)


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
        _md_table(["", ""], [
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
        "## Summary",
        "",
        _md_table(["benchmark", "case", "figure", "value"],
                  [[s["section"] if i == 0 else "", *r] for s in sections for i, r in enumerate(s["rows"])]),
        "",
        "How to read: `> x` means not found within the budget (x is what was spent, a lower bound); a ratio "
        "`< r` / `> r` is bounded by such a value. The stress ratio is fuzzfarm ÷ stress seconds to the first "
        "seed-bug crash (< 1: fuzzfarm is faster).",
        "",
    ]
    for s in sections:
        parts += [f"## {s['title']} (`benchmarks/{s['section']}.py`)", ""]
        if s.get("failed"):
            parts += ["**This benchmark failed in this run:**", "", "```", s["data"].get("traceback", "")[-2000:], "```", ""]
            continue
        parts += [_md_table(["case", "figure", "value"], s["rows"]), ""]
        if s["section"] == "time_to_bug":
            parts += [_ttb_seed_table(s["data"]), ""]
        if s.get("settings"):
            parts += ["Settings: " + "; ".join(f"{k}: {json.dumps(v) if not isinstance(v, str) else v}"
                                              for k, v in s["settings"].items()), ""]
        for n in s.get("notes", []):
            parts.append(f"- {n}")
        parts += ["", f"(section wall time {s['wall_s']:g} s)", ""]
    parts += ["## Reproduce", "", f"    {command}", "",
              "`--json` prints the same content as JSON (every measured number, per seed); each benchmark also runs "
              "alone: `python -m benchmarks.<name> [--quick] [--json]`.", ""]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(parts))
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
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
