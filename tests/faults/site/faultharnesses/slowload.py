#!/usr/bin/env python3
"""ff-slowload (test only): a harness whose import takes IMPORT_S seconds (a heavy dependency, a
cold disk), with a deterministic crash on inputs starting with ``C`` and a replay that hangs for
good (a Python loop) on inputs starting with ``H``. What the replay's time limit must get right:
the import is not the input's time, and a hang costs one bounded replay."""

import time

import atheris  # noqa: F401

from fuzzfarm.harness import atheris_main, execute_scenario

NAME = "ff-slowload"
VARIANTS = ("buggy",)
DESCRIPTION = "test only: slow import; crashes on C, hangs on H"
IMPORT_S = 3.0

time.sleep(IMPORT_S)


def _crash():
    raise ValueError("ff-slowload: the input starts with C")


def execute(data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False):
    from fuzzfarm import gosim

    def main():
        done = gosim.WaitGroup(name="wg")
        done.add(1)

        def worker():
            if data[:1] == b"C":
                _crash()
            while data[:1] == b"H":  # a hang outside libFuzzer too: only the replay's limit ends it
                pass
            done.done()

        gosim.go(worker)
        done.wait()

    return execute_scenario(main, data, min(1, len(data)), "slowload", trace=trace, log_schedule=log_schedule)


def TestOneInput(data: bytes) -> None:
    execute(data, "buggy").report.raise_failure()


if __name__ == "__main__":
    atheris_main(TestOneInput, __file__)
