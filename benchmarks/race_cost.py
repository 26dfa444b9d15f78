#!/usr/bin/env python3
"""Cost of the data race detector: harness runs (schedules) per second with it on and off.

    python -m benchmarks.race_cost [--seconds S] [--inputs N] [--targets h:v,...] [--atheris] [--json] [--doc]

For each target (a harness and variant: the seed harnesses ``checker`` and ``cluster-builder``,
the ``examples`` harness with its case from the last byte) the same ``N`` seeded random inputs
are run through the harness's ``execute`` in three modes: detector ``off`` (``race=False``),
``default`` (what the harness does: its declared ``race``, else the detector starts at the
first Shared/Var access; the seed harnesses declare it off) and
``on`` (``race=True``: started with every run, Map accesses checked too). The modes alternate
in short slices of the process's CPU time, so other load on the machine hits them alike.
``cost`` = off runs/s ÷ on runs/s (1.0 = free; the goal is <= 1.3). ``races`` counts the
inputs whose run ended in a data race with the detector on (a fixed variant should have none).
Uninstrumented by default; ``--atheris`` adds the same rows measured in a child process under
atheris instrumentation, inside ``atheris.Fuzz``, as a fuzzing campaign runs them.

``--doc`` replaces the section between ``<!-- race_cost -->`` markers in docs/BENCHMARKS.md
with the table (``benchmarks/run_all.py`` keeps that section when it rewrites the file).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DOC = os.path.join(ROOT, "docs", "BENCHMARKS.md")
GOAL = 1.3
TARGETS = (("checker", "fixed"), ("checker", "buggy"), ("cluster-builder", "fixed"), ("cluster-builder", "buggy"),
           ("examples", "fixed"), ("examples", "buggy"))
MODES = (("off", False), ("default", None), ("on", True))
BEGIN, END = "<!-- race_cost -->", "<!-- /race_cost -->"


def _load(name: str, instrumented: bool = False):
    if not instrumented:
        from fuzzfarm.engine.guard import skip_instrumentation

        skip_instrumentation()
    from fuzzfarm import harness as H

    return H, H.get(name).load()


def measure_target(name: str, variant: str, seconds: float, n_inputs: int, instrumented: bool = False) -> dict:
    H, mod = _load(name, instrumented)
    rng = random.Random(f"{name}/{variant}")
    inputs = [rng.randbytes(rng.randrange(64, 512)) for _ in range(n_inputs)]
    races = 0
    with H.race_detector(True):
        for data in inputs:
            f = mod.execute(data, variant).report.failure
            races += f is not None and f.kind == "data race"
    acc = {m: [0.0, 0] for m, _ in MODES}
    pos = {m: 0 for m, _ in MODES}
    slice_s = min(0.2, seconds / 5)
    while min(a[0] for a in acc.values()) < seconds:
        for m, flag in MODES:
            with H.race_detector(flag) if m != "default" else contextlib.nullcontext():
                t0 = time.process_time()
                end = t0 + slice_s
                runs = 0
                i = pos[m]
                while True:
                    mod.execute(inputs[i], variant)
                    i = (i + 1) % n_inputs
                    runs += 1
                    now = time.process_time()
                    if now >= end:
                        break
                pos[m] = i
            acc[m][0] += now - t0
            acc[m][1] += runs
    rates = {m: acc[m][1] / acc[m][0] for m, _ in MODES}
    return {"harness": name, "variant": variant, "inputs": n_inputs, "mode": "atheris" if instrumented else "uninstrumented",
            "runs_per_s": rates, "cost_on": rates["off"] / rates["on"],
            "cost_default": rates["off"] / rates["default"], "races_on": races}


def render(rows: list[dict]) -> str:
    head = f"{'target':<24} {'off runs/s':>10} {'default':>10} {'on runs/s':>10} {'cost on':>8} {'cost dflt':>9} {'races':>6}"
    lines = [head, "-" * len(head)]
    for r in rows:
        rt = r["runs_per_s"]
        mark = "" if r["cost_on"] <= GOAL else "  > goal"
        lines.append(f"{r['harness'] + ' ' + r['variant'] + (' (atheris)' if r.get('mode') == 'atheris' else ''):<24} {rt['off']:>10,.0f} {rt['default']:>10,.0f} "
                     f"{rt['on']:>10,.0f} {r['cost_on']:>7.2f}x {r['cost_default']:>8.2f}x {r['races_on']:>6}{mark}")
    return "\n".join(lines)


def doc_section(rows: list[dict], seconds: float, n_inputs: int, atheris: bool = False) -> str:
    out = [BEGIN, "## Data race detector cost (`benchmarks/race_cost.py`)", "",
           f"`python -m benchmarks.race_cost --seconds {seconds:g} --inputs {n_inputs}{' --atheris' if atheris else ''} --doc`: harness runs (one "
           "schedule each) per second of CPU time, the same seeded random inputs in each mode, modes alternating in "
           "short slices. off = `race=False`; default = what the harness does (its declared `race`, else the "
           "detector starts at the first Shared/Var access of a run; the seed harnesses declare it off); on = `race=True` (from the start of every run, Map accesses checked). "
           f"cost = off ÷ on (goal ≤ {GOAL}). races = inputs whose run ended in a data race with the detector on. "
           "Rows without a mark: uninstrumented; (atheris): the runtime and harness instrumented and measured "
           "inside `atheris.Fuzz`, as a fuzzing campaign runs them (`--atheris`).", "",
           "| target | off runs/s | default runs/s | on runs/s | cost on | cost default | races (on) |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        rt = r["runs_per_s"]
        out.append(f"| {r['harness']} {r['variant']}{' (atheris)' if r.get('mode') == 'atheris' else ''} | {rt['off']:,.0f} | {rt['default']:,.0f} | {rt['on']:,.0f} | "
                   f"{r['cost_on']:.2f}× | {r['cost_default']:.2f}× | {r['races_on']} / {r['inputs']} |")
    out += ["", END]
    return "\n".join(out)


def write_doc(section: str, path: str = DOC) -> None:
    text = open(path).read() if os.path.exists(path) else ""
    if BEGIN in text and END in text:
        a, b = text.index(BEGIN), text.index(END) + len(END)
        text = text[:a] + section + text[b:]
    elif "\n## Reproduce" in text:  # where benchmarks/run_all.py keeps it
        i = text.index("\n## Reproduce") + 1
        text = text[:i] + section + "\n\n" + text[i:]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def _atheris_child(targets, seconds: float, n_inputs: int) -> int:
    """Measure under atheris instrumentation, inside ``atheris.Fuzz`` (where the coverage
    callbacks run as in a fuzzing campaign); print one JSON line and leave at once."""
    import atheris

    def one_input(_data: bytes) -> None:
        rows = [measure_target(n, v, seconds, n_inputs, instrumented=True) for n, v in targets]
        sys.stdout.write(json.dumps(rows) + "\n")
        sys.stdout.flush()
        os._exit(0)

    atheris.Setup([sys.argv[0], "-runs=1"], one_input)
    atheris.Fuzz()
    return 1


def _measure_atheris(targets, seconds: float, n_inputs: int) -> list[dict]:
    import subprocess

    env = dict(os.environ, PYTHONHASHSEED="0")
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    spec = ",".join(f"{n}:{v}" for n, v in targets)
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--atheris-child", "--targets", spec,
                           "--seconds", str(seconds), "--inputs", str(n_inputs)],
                          env=env, capture_output=True, text=True, timeout=600 + 40 * seconds * len(targets))
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("[")]
    if not lines:
        raise SystemExit(f"race_cost: the atheris child failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return json.loads(lines[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per mode and target")
    ap.add_argument("--inputs", type=int, default=200, help="seeded random inputs per target")
    ap.add_argument("--targets", default="", help="comma-separated harness:variant (default: all)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--doc", action="store_true", help="write the section into docs/BENCHMARKS.md")
    ap.add_argument("--atheris", action="store_true", help="also measure under atheris instrumentation (a child process)")
    ap.add_argument("--atheris-child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    targets = TARGETS if not a.targets else tuple(tuple(t.split(":")) for t in a.targets.split(","))
    if a.atheris_child:
        return _atheris_child(targets, a.seconds, a.inputs)
    rows = [measure_target(n, v, a.seconds, a.inputs) for n, v in targets]
    if a.atheris:
        rows += _measure_atheris(targets, a.seconds, a.inputs)
    if a.json:
        print(json.dumps({"goal": GOAL, "seconds": a.seconds, "rows": rows}))
    else:
        print(render(rows))
    if a.doc:
        write_doc(doc_section(rows, a.seconds, a.inputs, a.atheris))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, ROOT)
    raise SystemExit(main())
