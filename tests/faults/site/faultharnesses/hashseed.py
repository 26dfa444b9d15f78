#!/usr/bin/env python3
"""ff-hashseed (test only): failures that depend on the process's PYTHONHASHSEED, which every
child process but the verification replays runs at 0.

* ``buggy``: a goroutine panics (RuntimeError, in ``first_word``) when a set of four strings
  iterates ``plum`` first: so under seed 0, and under about a third of the other seeds: a bug
  that is not reproducible in an ordinary process, only under some hash seeds;
* ``always``: a goroutine panics (ValueError, in ``the_bug``) in every run: a bug that always
  reproduces;
* ``fixed``: a no-op "fix" of ``always`` that still fails in about 1 of 10 hash seeds (the
  panic in ``the_bug`` when ``hash("ff-hashseed")`` says so), never under seed 0: a 10%-flaky
  variant that one replay and a fix fuzz under seed 0 would call fixed.

The whole input is the schedule.
"""

from fuzzfarm import gosim
from fuzzfarm.harness import ScenarioReader, declare

WORDS = ("apple", "pear", "plum", "fig")


def first_word():
    if next(iter(set(WORDS))) == "plum":  # set-of-str order: the hash seed decides
        raise RuntimeError("plum came first")


def the_bug(variant: str):
    if variant == "always" or (hash("ff-hashseed") >> 8) % 10 == 0:
        raise ValueError("the bug")


def read_scenario(rd: ScenarioReader):
    return None


def program(_sc, variant: str):
    def main():
        wg = gosim.WaitGroup(name="wg")
        wg.add(1)

        def worker():
            if variant == "buggy":
                first_word()
            else:
                the_bug(variant)
            wg.done()

        gosim.go(worker)
        wg.wait()
    return main


harness = declare(__name__, name="ff-hashseed", variants=("buggy", "always", "fixed"),
                  description="test only: failures that depend on PYTHONHASHSEED",
                  decode=read_scenario, program=program)

if __name__ == "__main__":
    harness.fuzz()
