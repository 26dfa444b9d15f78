#!/usr/bin/env python3
"""ff-poison (test only): a job that kills the Celery pool process running it, every time.

Its first execution SIGKILLs its parent when (and only when) that parent is a pool child of a
fuzzfarm Celery worker: on a worker that is what an OOM kill or a native crash of the job's
process looks like. Replays of its inputs do the same to a collector's pool child. Anywhere
else (pytest, a shell) it is a harmless harness that never fails.
"""

import atheris  # noqa: F401

from faultharnesses._common import kill_pool_process
from fuzzfarm.harness import atheris_main, execute_scenario

NAME = "ff-poison"
VARIANTS = ("buggy",)
DESCRIPTION = "test only: kills the worker process running it"


def execute(data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False):
    kill_pool_process()
    return execute_scenario(lambda: None, data, 0, "poison", trace=trace, log_schedule=log_schedule)


def TestOneInput(data: bytes) -> None:
    kill_pool_process()


if __name__ == "__main__":
    atheris_main(TestOneInput, __file__)
