#!/usr/bin/env python3
"""ff-hang (test only): inputs starting with ``H`` spin for HANG_S wall seconds.

Under libFuzzer with a small ``-timeout`` that is a hang (a ``timeout-*`` artifact); a plain
replay finishes after HANG_S, so the collector can still bucket it quickly. Other inputs pass.
"""

import time

import atheris  # noqa: F401

from fuzzfarm.harness import atheris_main, execute_scenario

NAME = "ff-hang"
VARIANTS = ("buggy",)
DESCRIPTION = "test only: hangs on inputs starting with H"
HANG_S = 6.0


def _spin():
    end = time.monotonic() + HANG_S
    while time.monotonic() < end:
        pass


def execute(data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False):
    if data[:1] == b"H":
        _spin()
    return execute_scenario(lambda: None, data, 0, "hang", trace=trace, log_schedule=log_schedule)


def TestOneInput(data: bytes) -> None:
    if data[:1] == b"H":
        _spin()


if __name__ == "__main__":
    atheris_main(TestOneInput, __file__)
