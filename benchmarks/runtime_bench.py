#!/usr/bin/env python3
"""Runtime microbenchmark: scheduling decisions/s and scenario runs/s of the deterministic
runtime, next to the practical limit measured in the same run.

    python benchmarks/runtime_bench.py [--quick] [--json] [--seconds S]

Rows: a 2-goroutine and a 16-goroutine scenario (every goroutine calls ``gosched()`` k times
under ``BytesStrategy`` fed with seeded random bytes), each uninstrumented and under atheris
instrumentation (the runtime and the scenario imported inside ``atheris.instrument_imports()``,
as a harness does, and measured inside ``atheris.Fuzz`` as a fuzz target runs). The limit is a minimal scheduler written only for this benchmark -- a list
of runnable greenlets, the next one picked from the same input bytes, a switch, nothing else --
doing the same number of switches in the same mode. Each mode is measured in its own
subprocess (instrumentation cannot be undone in a process). ``ratio`` = runtime decisions/s
÷ limit decisions/s (the target is >= 0.5). Rates are per second of the process's CPU time,
and runtime and limit alternate in short slices, so other load on the machine hits both alike
(docs/TRAPS.md#g24: compare ratios, not absolute figures).

``--json`` prints the same figures as one JSON object:
``{"target_ratio", "seconds_per_row", "rows": [{"scenario", "goroutines", "mode",
"decisions_per_run", "runtime_decisions_per_s", "runtime_runs_per_s", "limit_decisions_per_s",
"limit_runs_per_s", "ratio"}, ...], "python", "greenlet", "atheris"}``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TARGET_RATIO = 0.5
SCENARIOS = ((2, 200), (16, 25))  # (goroutines, gosched calls per goroutine): ~400 decisions per run
MODES = ("uninstrumented", "atheris")


def _child(mode: str, seconds: float) -> int:
    """Measure every scenario in this process, in ``mode``; print one JSON list. In atheris
    mode the measurement runs inside ``atheris.Fuzz`` (one input), where the coverage
    callbacks work as in a real fuzzing run."""
    sys.path.insert(0, HERE)
    if mode == "atheris":
        import atheris

        with atheris.instrument_imports():
            import fuzzfarm.gosim  # noqa: F401
            import fuzzfarm.strategies  # noqa: F401
            import _runtime_bench_targets as T

        def one_input(_data: bytes) -> None:
            # measured inside libFuzzer's callback, as a fuzz target runs; then leave at once
            # (atheris.Fuzz never returns: docs/TRAPS.md#g7)
            _measure_rows(T, mode, seconds)
            os._exit(0)

        atheris.Setup([sys.argv[0], "-runs=1"], one_input)
        atheris.Fuzz()
        return 1
    import _runtime_bench_targets as T

    _measure_rows(T, mode, seconds)
    return 0


def _measure_rows(T, mode: str, seconds: float) -> None:
    import random

    rows = []
    data = random.Random(1).randbytes(4096)
    for n, k in SCENARIOS:
        main = T.runtime_scenario(n, k)
        T.runtime_run(main, data)  # warm up both
        T.limit_run(n, k, data)
        rt = {"t": 0.0, "d": 0, "runs": 0}
        lim = {"t": 0.0, "d": 0, "runs": 0}
        slice_s = min(0.25, seconds / 4)
        while rt["t"] < seconds or lim["t"] < seconds:
            for acc, fn in ((rt, lambda: T.runtime_run(main, data)), (lim, lambda: T.limit_run(n, k, data))):
                t0 = time.process_time()
                end = t0 + slice_s
                d = runs = 0
                while True:
                    d += fn()
                    runs += 1
                    now = time.process_time()
                    if now >= end:
                        break
                acc["t"] += now - t0
                acc["d"] += d
                acc["runs"] += runs
        r_dps, l_dps = rt["d"] / rt["t"], lim["d"] / lim["t"]
        rows.append({
            "scenario": f"{n} goroutines x {k} gosched",
            "goroutines": n,
            "mode": mode,
            "decisions_per_run": rt["d"] / rt["runs"],
            "runtime_decisions_per_s": r_dps,
            "runtime_runs_per_s": rt["runs"] / rt["t"],
            "limit_decisions_per_run": lim["d"] / lim["runs"],
            "limit_decisions_per_s": l_dps,
            "limit_runs_per_s": lim["runs"] / lim["t"],
            "ratio": r_dps / l_dps,
        })
    sys.stdout.write(json.dumps(rows) + "\n")
    sys.stdout.flush()


def measure(seconds: float) -> dict:
    """Run one child per mode; the combined result (see the module docstring)."""
    rows = []
    for mode in MODES:
        env = dict(os.environ, PYTHONHASHSEED="0")
        env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", mode, "--seconds", str(seconds)],
                              env=env, capture_output=True, text=True, timeout=600 + 20 * seconds)
        if proc.returncode != 0:
            raise SystemExit(f"runtime_bench: the {mode} child failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
        line = [ln for ln in proc.stdout.splitlines() if ln.startswith("[")][-1]
        rows.extend(json.loads(line))
    return {
        "target_ratio": TARGET_RATIO,
        "seconds_per_row": seconds,
        "rows": rows,
        "python": platform.python_version(),
        "greenlet": _version("greenlet"),
        "atheris": _version("atheris"),
    }


def _version(dist: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def render(res: dict) -> str:
    head = (f"{'scenario':<26} {'mode':<15} {'dec/run':>7} {'runtime dec/s':>14} {'runtime runs/s':>14} "
            f"{'limit dec/s':>12} {'limit runs/s':>12} {'ratio':>6}")
    lines = [head, "-" * len(head)]
    for r in res["rows"]:
        mark = "" if r["ratio"] >= res["target_ratio"] else "  < target"
        lines.append(f"{r['scenario']:<26} {r['mode']:<15} {r['decisions_per_run']:>7.0f} "
                     f"{r['runtime_decisions_per_s']:>14,.0f} {r['runtime_runs_per_s']:>14,.1f} "
                     f"{r['limit_decisions_per_s']:>12,.0f} {r['limit_runs_per_s']:>12,.1f} {r['ratio']:>6.2f}{mark}")
    lines.append(f"ratio = runtime decisions/s / limit decisions/s (same switches, same mode, same run); "
                 f"target >= {res['target_ratio']}; {res['seconds_per_row']:g} s per row and side; "
                 f"Python {res['python']}, greenlet {res['greenlet']}, atheris {res['atheris']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="short measurement (about 0.3 s per row and side)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--seconds", type=float, default=None, help="seconds per row and side (default 3, quick 0.3)")
    ap.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    seconds = args.seconds if args.seconds is not None else (0.3 if args.quick else 3.0)
    if args.child:
        return _child(args.child, seconds)
    res = measure(seconds)
    print(json.dumps(res, indent=2) if args.json else render(res))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
