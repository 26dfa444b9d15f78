"""Throughput: scheduling decisions/s and exec/s per harness under atheris, next to the same
inputs uninstrumented and the runtime's bare microbench.

    python -m benchmarks.throughput [--quick] [--json] [--harness NAME]

* under atheris: ``benchmarks/_atheris_driver.py`` runs the harness module (instrumented as a
  farm job runs it) for ``throughput_s`` seconds with failures swallowed, counting executions
  and ``len(RunReport.decisions)`` per execution; rates are counts / time between its first and
  last stats write. libFuzzer's own ``stat::number_of_executed_units`` is kept as a check.
* uninstrumented: the corpus that atheris run produced, replayed in a loop for the same time in
  a plain Python process (what a walk or a replay costs): the instrumentation + libFuzzer cost
  is the ratio of the two.
* the runtime microbench is ``benchmarks/runtime_bench.py --json`` (another engineer's); when
  it is not there yet, the section says so.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time

from benchmarks import common as C

DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_atheris_driver.py")
RUNTIME_BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runtime_bench.py")


def _child(spec: dict) -> int:
    """Replay the corpus files uninstrumented for ``seconds``; print the counts as JSON."""
    from fuzzfarm import harness as H

    mod = H.get(spec["harness"]).load()
    inputs = []
    for p in spec["files"]:
        with open(p, "rb") as f:
            inputs.append(f.read())
    inputs = inputs or [b""]
    execs = decisions = steps = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < spec["seconds"]:
        for data in inputs:
            try:
                rep = mod.execute(data, spec["variant"]).report
                decisions += len(rep.decisions)
                steps += rep.steps
            except Exception:  # noqa: BLE001
                pass
            execs += 1
    dt = time.perf_counter() - t0
    print(json.dumps({"execs": execs, "decisions": decisions, "steps": steps, "seconds": dt, "inputs": len(inputs)}))
    return 0


def under_atheris(spec: C.HarnessSpec, variant: str, seconds: float, work: str) -> dict:
    from fuzzfarm.engine.libfuzzer_output import parse_final_execs
    corpus = os.path.join(work, "corpus")
    os.makedirs(corpus, exist_ok=True)
    stats = os.path.join(work, "stats.json")
    argv = [C.PY, DRIVER, spec.name, variant, stats, "-seed=1", f"-max_total_time={int(seconds)}", "-timeout=10",
            "-rss_limit_mb=2048", f"-artifact_prefix={work}/", "-print_final_stats=1", corpus]
    final = {}

    def on_line(t, line):
        n = parse_final_execs(line)
        if n is not None:
            final["execs"] = n

    rc, lines = C.run_streaming(argv, env=C.child_env({"FUZZFARM_VARIANT": variant}), cwd=work,
                                timeout=seconds + 60, on_line=on_line)
    try:
        with open(stats) as f:
            st = json.load(f)
    except (OSError, ValueError):
        tail = " | ".join(ln for _, ln in lines[-5:])
        raise RuntimeError(f"the atheris driver for {spec.name} wrote no stats (rc {rc}): {tail}")
    dt = max(1e-9, st["t"] - st["t0"])
    return {"execs": st["execs"], "decisions": st["decisions"], "steps": st["steps"], "seconds": round(dt, 3),
            "exec_per_s": st["execs"] / dt, "decisions_per_s": st["decisions"] / dt, "steps_per_s": st["steps"] / dt,
            "decisions_per_exec": st["decisions"] / max(1, st["execs"]), "libfuzzer_execs": final.get("execs"),
            "corpus": sorted(os.path.join(corpus, f) for f in os.listdir(corpus)), "rc": rc}


def uninstrumented(spec: C.HarnessSpec, variant: str, files: list[str], seconds: float) -> dict:
    payload = {"harness": spec.name, "variant": variant, "files": files, "seconds": seconds}
    (r,) = C.run_json_child([C.PY, "-m", "benchmarks.throughput", "--child", json.dumps(payload)],
                            timeout=seconds + 120)
    dt = max(1e-9, r["seconds"])
    return {**r, "exec_per_s": r["execs"] / dt, "decisions_per_s": r["decisions"] / dt, "steps_per_s": r["steps"] / dt}


def runtime_bench(quick: bool) -> dict:
    """Output of ``benchmarks/runtime_bench.py --json`` (``--quick`` too in quick mode when it
    accepts it), or why there is none."""
    if not os.path.exists(RUNTIME_BENCH):
        return {"available": False, "why": "benchmarks/runtime_bench.py does not exist yet (issue 2)"}
    attempts = ([[C.PY, RUNTIME_BENCH, "--json", "--quick"]] if quick else []) + [[C.PY, RUNTIME_BENCH, "--json"]]
    last = ""
    for argv in attempts:
        rc, lines = C.run_streaming(argv, env=C.child_env(), cwd=C.ROOT, timeout=900)
        text = "\n".join(ln for _, ln in lines)
        start = min([i for i in (text.find("{"), text.find("[")) if i >= 0], default=-1)
        if rc == 0 and start >= 0:
            try:
                return {"available": True, "command": " ".join(os.path.relpath(a, C.ROOT) if a == RUNTIME_BENCH
                                                                else os.path.basename(a) if a == C.PY else a
                                                                for a in argv),
                        "result": json.loads(text[start:])}
            except ValueError as e:
                last = f"its --json output did not parse: {e}"
                continue
        last = f"exited with {rc}: " + " | ".join(ln for _, ln in lines[-3:])
    return {"available": False, "why": f"benchmarks/runtime_bench.py {last}"}


def _known_rows(result) -> list[dict] | None:
    rows = result.get("rows") if isinstance(result, dict) else None
    if isinstance(rows, list) and rows and all(isinstance(r, dict) and "runtime_decisions_per_s" in r for r in rows):
        return rows
    return None


def _bench_rows(rb: dict) -> list[list[str]]:
    """Rows from the runtime microbench's JSON: its documented ``rows`` format, else (a future
    shape) every dict that has rate-like keys becomes a row."""
    if not rb.get("available"):
        return [["runtime microbench", "not run", rb.get("why", "")]]
    known = _known_rows(rb["result"])
    if known:
        return [[f"runtime microbench: {r.get('scenario')} ({r.get('mode')})", "decisions/s, runs/s; ÷ its limit",
                 f"{C.fmt_num(r['runtime_decisions_per_s'])} decisions/s, {C.fmt_num(r.get('runtime_runs_per_s'))} "
                 f"runs/s; minimal scheduler {C.fmt_num(r.get('limit_decisions_per_s'))} decisions/s; ratio "
                 f"{r.get('ratio', float('nan')):.2f}"] for r in known]
    out = []

    def walk(obj, path):
        if isinstance(obj, dict):
            rates = {k: v for k, v in obj.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
                     and any(w in k for w in ("per_s", "/s", "ratio", "rate"))}
            if rates:
                label = " ".join(str(obj.get(k)) for k in ("name", "scenario", "mode", "goroutines")
                                 if obj.get(k) is not None)
                out.append(["runtime microbench", (label or path or "result"),
                            ", ".join(f"{k} {C.fmt_num(float(v))}" for k, v in rates.items())])
            for k, v in obj.items():
                if isinstance(v, (dict, list)):
                    walk(v, f"{path} {k}".strip())
        elif isinstance(obj, list):
            for i, v in enumerate(obj):
                walk(v, f"{path}[{i}]")

    walk(rb["result"], "")
    return out or [["runtime microbench", "output", json.dumps(rb["result"])[:300]]]


def measure(prof: C.Profile, specs: list[C.HarnessSpec], log=None) -> dict:
    log = log or (lambda msg: None)
    out = []
    for spec in specs:
        variant = spec.seed_bug.variant if spec.seed_bug else spec.variants[0]
        work = tempfile.mkdtemp(prefix="fuzzfarm-bench-tp-")
        try:
            log(f"throughput: {spec.name}/{variant} under atheris")
            a = under_atheris(spec, variant, prof.throughput_s, work)
            log(f"throughput: {spec.name}/{variant} uninstrumented replay of its corpus")
            u = uninstrumented(spec, variant, a.pop("corpus"), prof.throughput_s)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        out.append({"harness": spec.name, "variant": variant, "atheris": a, "uninstrumented": u,
                    "instrumentation_cost": u["exec_per_s"] / max(1e-9, a["exec_per_s"]),
                    "instrumentation_cost_per_decision": u["decisions_per_s"] / max(1e-9, a["decisions_per_s"])})
    log("throughput: runtime microbench")
    return {"harnesses": out, "runtime_bench": runtime_bench(prof.quick)}


def rows(data: dict) -> list[list[str]]:
    out = []
    for r in data["harnesses"]:
        a, u = r["atheris"], r["uninstrumented"]
        case = f"{r['harness']}/{r['variant']}"
        out.append([case + " atheris", "exec/s, decisions/s",
                    f"{C.fmt_num(a['exec_per_s'])} exec/s, {C.fmt_num(a['decisions_per_s'])} decisions/s "
                    f"({C.fmt_num(a['decisions_per_exec'])} decisions/exec, {C.fmt_num(a['execs'])} execs in "
                    f"{C.fmt_num(a['seconds'])} s)"])
        out.append([case + " uninstrumented", "exec/s, decisions/s (its corpus, replayed)",
                    f"{C.fmt_num(u['exec_per_s'])} exec/s, {C.fmt_num(u['decisions_per_s'])} decisions/s; "
                    f"atheris slows it x{r['instrumentation_cost']:.2f} per exec, "
                    f"x{r['instrumentation_cost_per_decision']:.2f} per decision"])
    rb = data["runtime_bench"]
    known = _known_rows(rb.get("result")) if rb.get("available") else None
    if known:
        ath = [r for r in known if r.get("mode") == "atheris"]
        for r in data["harnesses"]:
            if ath:
                mine = r["atheris"]["decisions_per_s"]
                out.append([f"{r['harness']}/{r['variant']} atheris", "decisions/s vs runtime microbench (atheris)",
                            ", ".join(f"x{mine / max(1e-9, b['runtime_decisions_per_s']):.2f} of {b.get('scenario')}"
                                      for b in ath)])
    return out + _bench_rows(rb)


def run(prof: C.Profile, only=None, log=None) -> dict:
    t0 = time.monotonic()
    specs, notes = C.harnesses(only)
    data = measure(prof, specs, log)
    settings = {"seconds": prof.throughput_s, "atheris": "-seed=1 -timeout=10, empty corpus, failures swallowed",
                "variant": "the seed bug's variant (buggy)"}
    return C.section("throughput", "Throughput", prof, settings, rows(data), data, notes, t0)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        raise SystemExit(_child(json.loads(sys.argv[2])))
    raise SystemExit(C.standalone("throughput", __doc__, run))
