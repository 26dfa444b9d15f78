#!/usr/bin/env python3
"""ff-verdict (test only): two goroutines each write two keys of one shared map; variants are
fixes that a lying fix check would call ``fixed``.

* ``buggy``: no lock; a preemption inside either write gives ``concurrent map writes``;
* ``fixed``: both writes under one mutex (the real fix);
* ``fixed-narrow``: only the first write under the mutex: the window is narrowed, not closed
  (the buggy reproducer's schedule no longer fails, other schedules still do);
* ``fixed-panics``: the writer panics with KeyError (the fix turns bug X into bug Y);
* ``fixed-deadlock``: the writer never unlocks the mutex (all goroutines asleep);
* ``fixed-hangs``: the writer spins for HANG_S wall seconds (a replay times out).

Every input byte drives the schedule (one byte per scheduling decision).
"""

import time

import atheris  # noqa: F401

from fuzzfarm.harness import atheris_main, execute_scenario, variant_from_env

NAME = "ff-verdict"
VARIANTS = ("buggy", "fixed", "fixed-narrow", "fixed-panics", "fixed-deadlock", "fixed-hangs")
DESCRIPTION = "test only: shared-map writes and fixes that do not hold"
HANG_S = 120.0


def execute(data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False):
    from fuzzfarm import gosim

    def main():
        m = gosim.Map(name="shared")
        mu = gosim.Mutex(name="mu")
        wg = gosim.WaitGroup(name="wg")
        wg.add(2)

        def writer(k):
            if variant == "fixed-panics":
                raise KeyError(f"writer {k}: the fix looks up a key that is not there")
            if variant == "fixed-hangs":
                end = time.monotonic() + HANG_S
                while time.monotonic() < end:
                    pass
            guard_first = variant in ("fixed", "fixed-narrow", "fixed-deadlock")
            if guard_first:
                mu.lock()
            m[k] = 1
            if variant in ("fixed", "fixed-narrow"):
                mu.unlock()
            if variant == "fixed":
                mu.lock()
            m[k + 100] = 2
            if variant == "fixed":
                mu.unlock()
            wg.done()

        gosim.go(writer, 1)
        gosim.go(writer, 2)
        wg.wait()

    return execute_scenario(main, data, 0, "two writers", trace=trace, log_schedule=log_schedule)


_VARIANT = None


def TestOneInput(data: bytes) -> None:
    global _VARIANT
    if _VARIANT is None:
        _VARIANT = variant_from_env(VARIANTS)
    execute(data, _VARIANT).report.raise_failure()


if __name__ == "__main__":
    atheris_main(TestOneInput, __file__)
