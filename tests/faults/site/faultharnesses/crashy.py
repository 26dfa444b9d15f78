#!/usr/bin/env python3
"""ff-crashy (test only): a goroutine panic (ValueError) on every input that starts with ``C``.

libFuzzer finds such inputs within a fraction of a second and each one is a distinct crash
input of the same bug (one bucket), so a job reports a steady stream of crashes: what the
kill / restart drills count. Variants: ``buggy``; ``fixed`` (never fails); ``slow`` (as buggy,
but every execution takes 0.2 s more, so minimizing a long input takes a while).
"""

import time

import atheris

with atheris.instrument_imports():
    from faultharnesses._shape import shape  # coverage: a small corpus grows

from fuzzfarm.harness import atheris_main, execute_scenario, variant_from_env

NAME = "ff-crashy"
VARIANTS = ("buggy", "fixed", "slow")
DESCRIPTION = "test only: panics on inputs starting with C"


def _panic_on_c():
    raise ValueError("ff-crashy: the input starts with C")


def execute(data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False):
    from fuzzfarm import gosim

    if variant == "slow":
        time.sleep(0.2)
    fails = variant != "fixed" and data[:1] == b"C"
    shape(data)

    def main():
        done = gosim.WaitGroup(name="wg")
        done.add(1)

        def worker():
            if fails:
                _panic_on_c()
            done.done()

        gosim.go(worker)
        done.wait()

    return execute_scenario(main, data, min(1, len(data)), f"crashy fails={fails}", trace=trace,
                            log_schedule=log_schedule)


_VARIANT = None


def TestOneInput(data: bytes) -> None:
    global _VARIANT
    if _VARIANT is None:
        _VARIANT = variant_from_env(VARIANTS)
    execute(data, _VARIANT).report.raise_failure()


if __name__ == "__main__":
    atheris_main(TestOneInput, __file__)
