#!/usr/bin/env python3
"""Toy ``late_cancel``: a checker whose cancel func is set by the checker goroutine itself.

Main starts worker W and waits for it. W drains the events ``[add k, delete k]``. ``add``
creates a checker with ``cancel = None``, takes the checker's lock, starts the checker goroutine
C, releases the lock and stores the checker in a map under the measurement lock. C's first act
is to set ``cancel`` under the checker's lock, then it waits for its context. ``delete`` takes
the measurement lock, removes the checker and calls ``stop``, which calls ``cancel`` under the
checker's lock: if C has not run yet, that is a call of None (Go: nil func call; here a
TypeError panic). Fixed: W creates the context and sets ``cancel`` before starting C.

The shape of clusterloader2's objectChecker bug (``harnesses/checker_race.py``), small enough
for an exhaustive search. The input is only the schedule.
"""

from fuzzfarm import gosim
from fuzzfarm.harness import execute_scenario

NAME = "late_cancel"
VARIANTS = ("buggy", "fixed")
DESCRIPTION = "toy: checker goroutine sets its own cancel too late (nil cancel on delete)"


class _Checker:
    def __init__(self):
        self.lock = gosim.Mutex(name="checker.lock")
        self.cancel = None

    def stop(self):
        with self.lock:
            self.cancel()


def _main(fixed: bool):
    def main():
        mlock = gosim.Mutex(name="measurement.lock")
        checkers = gosim.Map(name="checkers")
        done = gosim.Chan(name="W.done")

        def run_checker(c, ctx, cancel):  # C
            if not fixed:
                with c.lock:
                    c.cancel = cancel
            ctx.done().recv()

        def add(k):
            c = _Checker()
            ctx, cancel = gosim.with_cancel(gosim.background())
            if fixed:
                c.cancel = cancel
            c.lock.lock()
            gosim.go(run_checker, c, ctx, cancel, name="checker")
            c.lock.unlock()
            with mlock:
                checkers[k] = c

        def delete(k):
            with mlock:
                c = checkers.pop(k)
                c.stop()

        def worker():  # W
            for op, k in (("add", "k"), ("delete", "k")):
                (add if op == "add" else delete)(k)
            done.close()

        gosim.go(worker, name="W")
        done.recv()

    return main


buggy = _main(False)
fixed = _main(True)


def execute(data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False):
    main = fixed if variant == "fixed" else buggy
    return execute_scenario(main, data, 0, f"late_cancel ({variant})", trace=trace, log_schedule=log_schedule)


def TestOneInput(data: bytes) -> None:
    execute(data, "buggy").report.raise_failure()
