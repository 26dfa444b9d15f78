#!/usr/bin/env python3
"""atheris entry point of the throughput benchmark (not a harness; run by ``throughput``).

    python benchmarks/_atheris_driver.py HARNESS VARIANT STATS_FILE [libFuzzer flags] [corpus]

Imports the registered harness module exactly as ``python harnesses/<x>.py`` does (its own
``atheris.instrument_imports()`` block instruments the runtime and the port: nothing of
fuzzfarm is imported before it, docs/TRAPS.md#g8), runs ``execute`` for every input with the
failure swallowed (so libFuzzer keeps going for the whole budget instead of stopping at the
first crash), and writes ``{"t0", "t", "execs", "decisions", "steps"}`` (monotonic seconds,
cumulative counts) to STATS_FILE every 0.25 s: ``atheris.Fuzz()`` ends with C ``exit()``, so
nothing can be written at the end (docs/TRAPS.md#g7).
"""

import importlib
import json
import os
import sys
import time
from importlib import metadata

import atheris


def main() -> None:
    name, variant, stats_path = sys.argv[1:4]
    module = next(ep.value for ep in metadata.entry_points(group="fuzzfarm.harnesses") if ep.name == name)
    mod = importlib.import_module(module)
    c = {"t0": None, "t": None, "execs": 0, "decisions": 0, "steps": 0, "harness_errors": 0}
    nxt = [0.0]

    def flush(now: float) -> None:
        c["t"] = now
        tmp = stats_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(c, f)
        os.replace(tmp, stats_path)

    def test_one_input(data: bytes) -> None:
        now = time.monotonic()
        if c["t0"] is None:
            c["t0"] = now
        try:
            rep = mod.execute(data, variant).report
            c["decisions"] += len(rep.decisions)
            c["steps"] += rep.steps
        except Exception:  # noqa: BLE001 - a harness decoding error is still an execution
            c["harness_errors"] += 1
        c["execs"] += 1
        if now >= nxt[0]:
            nxt[0] = now + 0.25
            flush(time.monotonic())

    from fuzzfarm.harness import libfuzzer_args  # after the harness: it instrumented fuzzfarm first

    atheris.Setup([sys.argv[0]] + libfuzzer_args(sys.argv[4:]), test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
