#!/usr/bin/env python3
"""ff-flaky (test only): a bug that fails in about 30% of executions of an input starting with
``F`` (a goroutine panic, ValueError), whatever the schedule: what the runtime does not control
(here ``os.urandom``) decides. Stands for a real bug whose reproducer is flaky. Variants:
``buggy``; ``fixed``, a no-op fix (exactly as buggy): no verdict may call it fixed.
"""

import os

import atheris  # noqa: F401

from fuzzfarm.harness import atheris_main, execute_scenario, variant_from_env

NAME = "ff-flaky"
VARIANTS = ("buggy", "fixed")
DESCRIPTION = "test only: fails 30% of the time on inputs starting with F"
RATE_OF_256 = 77  # 77/256 = 30%


def _flaky_panic():
    raise ValueError("ff-flaky: lost the race this time")


def execute(data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False):
    from fuzzfarm import gosim

    fails = data[:1] == b"F" and os.urandom(1)[0] < RATE_OF_256

    def main():
        done = gosim.WaitGroup(name="wg")
        done.add(1)

        def worker():
            if fails:
                _flaky_panic()
            done.done()

        gosim.go(worker)
        done.wait()

    return execute_scenario(main, data, min(1, len(data)), "flaky", trace=trace, log_schedule=log_schedule)


_VARIANT = None


def TestOneInput(data: bytes) -> None:
    global _VARIANT
    if _VARIANT is None:
        _VARIANT = variant_from_env(VARIANTS)
    execute(data, _VARIANT).report.raise_failure()


if __name__ == "__main__":
    atheris_main(TestOneInput, __file__)
