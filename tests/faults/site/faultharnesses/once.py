#!/usr/bin/env python3
"""ff-once (test only): fails (a goroutine panic, RuntimeError) only in the first execution of a
process, on inputs starting with ``O``; every later execution in the same process passes. Stands
for a bug whose failure a warm process hides (state one run leaves behind: a cache filled, an
init-once done). Replays counted for "reproducible N/N" must be fresh processes: replayed N
times in one process it fails once. Variants: ``buggy``; ``fixed``, which never fails.
"""

import atheris  # noqa: F401

from fuzzfarm.harness import atheris_main, execute_scenario, variant_from_env

NAME = "ff-once"
VARIANTS = ("buggy", "fixed")
DESCRIPTION = "test only: fails only in the first execution of a process"
_RUNS = [0]  # executions in this process


def _first_run_panic():
    raise RuntimeError("ff-once: the first run of this process")


def execute(data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False):
    from fuzzfarm import gosim

    _RUNS[0] += 1
    fails = variant == "buggy" and data[:1] == b"O" and _RUNS[0] == 1

    def main():
        wg = gosim.WaitGroup(name="wg")
        wg.add(1)

        def worker():
            if fails:
                _first_run_panic()
            wg.done()

        gosim.go(worker)
        wg.wait()

    return execute_scenario(main, data, min(1, len(data)), "once", trace=trace, log_schedule=log_schedule)


def TestOneInput(data: bytes) -> None:
    execute(data, variant_from_env(VARIANTS))


if __name__ == "__main__":
    atheris_main(TestOneInput, __file__)
