#!/usr/bin/env python3
"""ff-hang (test only): under libFuzzer, inputs starting with ``H`` spin forever (a hang:
libFuzzer's ``-timeout`` makes it a ``timeout-*`` artifact). A replay outside libFuzzer
(``execute``, what the collector runs) spins only REPLAY_SPIN_S, so triaging the hang stays
cheap; it does not fail, and the collector files it under its libFuzzer artifact kind."""

import time

import atheris  # noqa: F401

from fuzzfarm.harness import atheris_main, execute_scenario

NAME = "ff-hang"
VARIANTS = ("buggy",)
DESCRIPTION = "test only: hangs on inputs starting with H"
REPLAY_SPIN_S = 1.0


def _spin(seconds: float):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def execute(data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False):
    if data[:1] == b"H":
        _spin(REPLAY_SPIN_S)
    return execute_scenario(lambda: None, data, 0, "hang", trace=trace, log_schedule=log_schedule)


def TestOneInput(data: bytes) -> None:
    if data[:1] == b"H":
        while True:  # a real hang: only libFuzzer's -timeout ends it
            pass


if __name__ == "__main__":
    atheris_main(TestOneInput, __file__)
