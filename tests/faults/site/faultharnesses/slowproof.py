#!/usr/bin/env python3
"""ff-slowproof (test only): two buckets of one root-cause group and one scenario, and a fix whose
proof takes its whole budget.

* ``buggy``: a writer stores ``a = 1``, takes ``WIDE`` steps of its own, then stores ``b = 1``;
  two readers, ``left`` and ``right``, each look at the pair and panic (RuntimeError, in
  ``torn``) when they see ``a`` set and ``b`` not. Which reader sees it first depends on the
  schedule only: two signatures (``torn <- check_left ...`` and ``torn <- check_right ...``),
  one group (a ``goroutine panic (RuntimeError)`` in ``torn``), one scenario (the whole input is
  the schedule), so one proof key (farm/triage.py ``proof_key``);
* ``fixed``: the pair is written and read under one mutex, and every goroutine first takes
  ``STEPS`` steps of its own: never fails, and its bounded search (2 preemptions) has far more
  schedules than a budget of a few CPU seconds covers, so the proof runs its whole budget
  (with FUZZFARM_PROVE_GIVE_UP_EARLY=0) and ends "not exhausted".
"""

from fuzzfarm import gosim
from fuzzfarm.harness import ScenarioReader, declare

NAME = "ff-slowproof"
VARIANTS = ("buggy", "fixed")
WIDE = 20
STEPS = 60
LOOKS = 3


def torn():
    raise RuntimeError("ff-slowproof: the pair was seen half written")


def check_left(a, b):
    if a.load() == 1 and b.load() == 0:
        torn()


def check_right(a, b):
    if a.load() == 1 and b.load() == 0:
        torn()


def read_scenario(rd: ScenarioReader):
    return None


def program(_sc, variant: str):
    fixed = variant == "fixed"

    def main():
        a, b = gosim.atomic.Int32(name="a"), gosim.atomic.Int32(name="b")
        mu = gosim.Mutex(name="mu")
        wg = gosim.WaitGroup(name="wg")
        wg.add(3)

        def own_steps(name):
            own = gosim.atomic.Int32(name=name)
            for i in range(STEPS if fixed else 1):
                own.store(i)

        def writer():
            own_steps("w")
            if fixed:
                mu.lock()
            a.store(1)
            for i in range(0 if fixed else WIDE):
                b.store(0)
            b.store(1)
            if fixed:
                mu.unlock()
            wg.done()

        def reader(check, name):
            def run():
                own_steps(name)
                for _ in range(LOOKS):
                    if fixed:
                        mu.lock()
                    check(a, b)
                    if fixed:
                        mu.unlock()
                wg.done()
            return run

        gosim.go(writer)
        gosim.go(reader(check_left, "l"))
        gosim.go(reader(check_right, "r"))
        wg.wait()
    return main


harness = declare(__name__, name="ff-slowproof", variants=VARIANTS,
                  description="test only: two buckets of one proof, and a proof that takes its budget",
                  decode=read_scenario, program=program, max_steps=20000)

if __name__ == "__main__":
    harness.fuzz()
