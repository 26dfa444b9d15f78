#!/usr/bin/env python3
"""ff-hog (test only): under libFuzzer, inputs starting with ``M`` allocate HOG_MB megabytes
(touched, held for a moment): with ``-rss_limit_mb`` below that, an ``oom-*`` artifact. A replay
outside libFuzzer (``execute``, what the collector runs) allocates nothing and passes, so the
collector files it under its libFuzzer artifact kind. Other inputs pass."""

import time

import atheris  # noqa: F401

from fuzzfarm.harness import atheris_main, execute_scenario

NAME = "ff-hog"
VARIANTS = ("buggy",)
DESCRIPTION = "test only: eats memory on inputs starting with M"
HOG_MB = 600


def _hog():
    held = []
    for _ in range(HOG_MB // 20):
        held.append(bytearray(20 << 20))  # zero-filled: every page touched
    time.sleep(1.5)  # libFuzzer's RSS thread looks once a second
    del held


def execute(data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False):
    return execute_scenario(lambda: None, data, 0, "hog", trace=trace, log_schedule=log_schedule)


def TestOneInput(data: bytes) -> None:
    if data[:1] == b"M":
        _hog()


if __name__ == "__main__":
    atheris_main(TestOneInput, __file__)
