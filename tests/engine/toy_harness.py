#!/usr/bin/env python3
"""A tiny harness for the engine and collector tests (never registered as an entry point).

Input layout: ``[mode, key, extra, schedule bytes...]`` (a missing mode or extra reads as 0, a
missing key as 1: the empty input does not fail, so libFuzzer can start).

* mode % 2 == 0, "writers": two goroutines write keys ``key`` and ``key+1`` of one shared
  ``gosim.Map`` and ``extra % 4`` bystander goroutines spin through a few scheduling points.
  Bug A (``concurrent map writes``) needs one preemption inside a write. Bug B: a writer with
  ``key == 0`` panics with ValueError whatever the schedule, so shrinking ``key`` towards 0
  turns A into B: the minimizer must refuse that (docs/TRAPS.md#g3).
* mode % 2 == 1, "cancel": a goroutine stores a cancel func while main sleeps 50 virtual
  ms; firing the timer early makes main call the still-``None`` cancel (TypeError panic,
  no preemption needed, one timer decision).

Variants: ``buggy``; ``fixed`` (the map is guarded by a mutex and ``stop`` skips a nil cancel;
bug B stays); ``flaky`` (the schedule gets random bytes from os.urandom in front: replays
diverge); ``hang`` (busy-loops on inputs starting with ``H``, else as buggy); ``oom``
(allocates without bound on inputs starting with ``M``, else as buggy).
"""

import os
import time

import atheris

with atheris.instrument_imports():
    from fuzzfarm import gosim

from fuzzfarm.harness import atheris_main, execute_scenario, variant_from_env

NAME = "toy"
VARIANTS = ("buggy", "fixed", "flaky", "hang", "oom")
DESCRIPTION = "toy map-write / nil-cancel scenario for fuzzfarm's own tests"
HEADER = 3


def _writers(key: int, extra: int, fixed: bool):
    def main():
        m = gosim.Map(name="shared")
        mu = gosim.Mutex(name="mu")
        wg = gosim.WaitGroup(name="wg")
        wg.add(2 + extra)

        def writer(k):
            if key == 0:
                raise ValueError("writer got key 0")
            if fixed:
                mu.lock()
            m[k] = k
            if fixed:
                mu.unlock()
            wg.done()

        def bystander():
            gosim.gosched()
            gosim.gosched()
            wg.done()

        for _ in range(extra):
            gosim.go(bystander)
        gosim.go(writer, key)
        gosim.go(writer, key + 1)
        wg.wait()

    return main


class _Checker:
    def __init__(self, fixed: bool):
        self.cancel = None
        self.fixed = fixed

    def set_cancel(self, cancel):
        self.cancel = cancel

    def stop(self):
        if self.fixed and self.cancel is None:
            return
        self.cancel()


def _cancel(fixed: bool):
    def main():
        c = _Checker(fixed)

        def starter():
            _ctx, cancel = gosim.with_cancel(gosim.background())
            c.set_cancel(cancel)

        gosim.go(starter)
        gosim.sleep(0.05)  # within the harness's starvation bound (docs/timing.md), so it may fire early
        c.stop()

    return main


def execute(data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False):
    if variant == "hang" and data[:1] == b"H":
        while True:
            pass
    if variant == "oom" and data[:1] == b"M":
        hog = []
        while True:
            hog.append(b"\x01" * (16 << 20))
            time.sleep(0.01)
    mode = data[0] if len(data) > 0 else 0
    key = data[1] if len(data) > 1 else 1
    extra = data[2] % 4 if len(data) > 2 else 0
    if variant == "flaky":
        data = data[:HEADER] + os.urandom(8) + data[HEADER:]
    fixed = variant == "fixed"
    if mode % 2 == 0:
        main, scenario = _writers(key, extra, fixed), f"writers key={key} extra={extra}"
    else:
        main, scenario = _cancel(fixed), "cancel"
    return execute_scenario(main, data, min(HEADER, len(data)), scenario, trace=trace, log_schedule=log_schedule)


_VARIANT = None


def TestOneInput(data: bytes) -> None:
    global _VARIANT
    if _VARIANT is None:
        _VARIANT = variant_from_env(VARIANTS)
    execute(data, _VARIANT).report.raise_failure()


if __name__ == "__main__":
    atheris_main(TestOneInput, __file__)
