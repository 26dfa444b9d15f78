#!/usr/bin/env python3
"""ff-starved (test only): a failure that only a starved goroutine gives, so it is found,
reproduced and fix-checked only under the campaign's own starvation bound (docs/timing.md).

``main`` starts a worker that is runnable at once, then sleeps one virtual second and panics
when the worker has not run by then. Only a schedule that fires main's timer early while the
worker is runnable (the worker waits 1 s) fails: never under the farm's default bound of 0.1 s,
often with ``--max-starvation none``. Variants:

* ``buggy``: as above;
* ``fixed``: a fix that only moves the window (main yields once before it sleeps): the buggy
  reproducer passes on it, other schedules with a starved worker still fail, so a fix check
  run under the campaign's bound must not call it fixed (under the default bound every
  schedule passes);
* ``early``: an event-order bug (main checks before it sleeps), found under any bound, whose
  fix check is ``fixed``: its answer holds under the default bound only, since ``fixed`` fails
  with the same failure when the worker may be starved (a bucket's verdict per bound).

The first input byte is unused (keeps inputs non-empty); the rest drives the schedule.
"""

import atheris  # noqa: F401

from fuzzfarm.harness import atheris_main, execute_scenario, variant_from_env

NAME = "ff-starved"
VARIANTS = ("buggy", "fixed", "early")
DESCRIPTION = "test only: fails only when a runnable goroutine is starved for 1 virtual second"


def _check_ran(ran):
    if not ran:
        raise RuntimeError("ff-starved: the worker did not run within 1 s of being started")


def execute(data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False):
    from fuzzfarm import gosim

    def main():
        ran = []

        def worker():
            ran.append(True)

        gosim.go(worker)
        if variant == "fixed":
            gosim.gosched()
        if variant != "early":
            gosim.sleep(1.0)
        _check_ran(ran)

    return execute_scenario(main, data, min(1, len(data)), "worker vs 1 s sleep", trace=trace,
                            log_schedule=log_schedule)


_VARIANT = None


def TestOneInput(data: bytes) -> None:
    global _VARIANT
    if _VARIANT is None:
        _VARIANT = variant_from_env(VARIANTS)
    execute(data, _VARIANT).report.raise_failure()


if __name__ == "__main__":
    atheris_main(TestOneInput, __file__)
