#!/usr/bin/env python3
"""ff-gonames (test only): a TTL cache whose buggy and fixed ``Close`` are two Python functions
declaring one Go function, built so that a fix check comparing Python names would lie.

``Run`` evicts the expired entry of ``items`` under ``mu`` on each tick; ``Close`` deletes the
rest. Variants:

* ``buggy``: ``Close`` deletes the items without the lock (``_close_buggy``):
  ``concurrent map writes`` between the two (reported in ``Close`` by the inputs the tests use);
* ``fixed-wrong``: a fix that does not hold (``_close_wrong``, the same Go ``(*Cache).Close``):
  it takes the lock only after deleting, the very same Go bug, so the verdict must be ``NO``;
* ``fixed-other``: ``Close`` locks, but hands the deletes to a new helper ``(*Cache).purge``
  that runs them unlocked from another goroutine: the same kind at another Go crash state, so
  the verdict must stay ``fails differently``;
* ``fixed``: deletes under the lock.

The first input byte is unused; the rest drives the schedule.
"""

import atheris  # noqa: F401

from fuzzfarm import gosim
from fuzzfarm.harness import atheris_main, execute_scenario, variant_from_env

NAME = "ff-gonames"
VARIANTS = ("buggy", "fixed", "fixed-wrong", "fixed-other")
DESCRIPTION = "test only: buggy and fixed Close are two Python functions for one Go function"


class Cache:
    def __init__(self):
        self.mu = gosim.Mutex(name="mu")
        self.items = gosim.Map(name="items")
        for k in range(6):
            self.items[k] = k
        self.done = gosim.Chan(0, name="done")

    @gosim.go_func("(*Cache).Run", "cache.go:30")
    def run(self):
        for tick in range(2):
            gosim.sleep(1.0)  # the ticker's tick
            self.mu.lock()
            del self.items[tick]  # :34 the entry that expired
            self.mu.unlock()
        self.done.send(True)

    @gosim.go_func("(*Cache).Close", "cache.go:50")
    def _close_buggy(self):
        for k in range(2, 6):
            del self.items[k]  # :52

    @gosim.go_func("(*Cache).Close", "cache.go:50")
    def _close_wrong(self):
        for k in range(2, 6):
            del self.items[k]  # :52
        self.mu.lock()
        self.mu.unlock()

    @gosim.go_func("(*Cache).Close", "cache.go:50")
    def _close_other(self):
        self.mu.lock()
        gosim.go(self._purge)
        self.mu.unlock()

    @gosim.go_func("(*Cache).purge", "cache.go:70")
    def _purge(self):
        for k in range(2, 6):
            del self.items[k]  # :72

    @gosim.go_func("(*Cache).Close", "cache.go:50")
    def _close_fixed(self):
        self.mu.lock()
        for k in range(2, 6):
            del self.items[k]  # :53
        self.mu.unlock()


CLOSE = {"buggy": Cache._close_buggy, "fixed-wrong": Cache._close_wrong, "fixed-other": Cache._close_other,
         "fixed": Cache._close_fixed}


def execute(data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False):
    close = CLOSE[variant]

    @gosim.not_ported("scenario driver: starts Run, closes the cache after a tick")
    def main():
        c = Cache()
        gosim.go(c.run)
        gosim.sleep(1.0)
        close(c)
        c.done.recv()

    return execute_scenario(main, data, min(1, len(data)), "Run ticking vs Close", trace=trace,
                            log_schedule=log_schedule)


_VARIANT = None


def TestOneInput(data: bytes) -> None:
    global _VARIANT
    if _VARIANT is None:
        _VARIANT = variant_from_env(VARIANTS)
    execute(data, _VARIANT).report.raise_failure()


if __name__ == "__main__":
    atheris_main(TestOneInput, __file__)
