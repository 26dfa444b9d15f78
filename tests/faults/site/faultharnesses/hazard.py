#!/usr/bin/env python3
"""ff-hazard (test only): an upstream hazard the fix keeps, declared in ``FIXED_MAY_FAIL`` by
its signature, beside a new bug of the same kind that a fix brings.

* every variant: ``upstream_hazard`` panics (RuntimeError) when it runs before main marks the
  state ready (one preemption, at main's ``go``): the declared hazard;
* ``buggy``: ``apply_change`` panics (ValueError) whatever the schedule: the bug;
* ``fixed``: ``apply_change`` is fixed: only the hazard is left;
* ``fixed-newbug``: ``apply_change`` is fixed, but the fix's ``new_helper`` panics (RuntimeError,
  the hazard's very kind) when it runs before ``apply_change`` is done (one preemption): a new
  bug that no FIXED_MAY_FAIL entry may excuse.

The whole input is the schedule.
"""

from fuzzfarm import gosim
from fuzzfarm.harness import ScenarioReader, declare

FIXED_MAY_FAIL = frozenset({"goroutine panic at upstream_hazard"})


def upstream_hazard(ready, wg):
    if ready.load() == 0:
        raise RuntimeError("upstream: used before ready")
    wg.done()


def apply_change(done, variant: str, wg):
    if variant == "buggy":
        raise ValueError("the bug")
    done.store(1)
    wg.done()


def new_helper(done, wg):
    if done.load() == 0:
        raise RuntimeError("the fix's helper ran before the change was applied")
    wg.done()


def read_scenario(rd: ScenarioReader):
    return None


def program(_sc, variant: str):
    def main():
        ready, done = gosim.atomic.Int32(name="ready"), gosim.atomic.Int32(name="done")
        wg = gosim.WaitGroup(name="wg")
        wg.add(3 if variant == "fixed-newbug" else 2)
        gosim.go(upstream_hazard, ready, wg)
        ready.store(1)
        gosim.go(apply_change, done, variant, wg)
        if variant == "fixed-newbug":
            gosim.go(new_helper, done, wg)
        wg.wait()
    return main


harness = declare(__name__, name="ff-hazard", variants=("buggy", "fixed", "fixed-newbug"),
                  description="test only: a declared upstream hazard beside a new bug of its kind",
                  decode=read_scenario, program=program, fixed_may_fail=FIXED_MAY_FAIL)

if __name__ == "__main__":
    harness.fuzz()
