#!/usr/bin/env python3
"""Harness ``examples``: the Go concurrency bugs of docs/CASES.md and docs/ports/race_examples.md as one fuzz target.

Input layout, as in every fuzzfarm harness (``fuzzfarm.harness.ScenarioReader``): the LAST byte
picks the case (``fuzzfarm.examples.CASE_NAMES[byte % len(CASE_NAMES)]``, 18 cases; no byte: the first case); every
byte before it drives the runtime's bytes strategy (which goroutine runs at each scheduling
point, whether a timer fires early, select cases, map iteration starts). With
``FUZZFARM_EXAMPLE=hc06`` (a case id or module name) the case is pinned and the whole input
is the schedule: that is how each case is fuzzed on its own.

Variants: ``buggy`` (before the upstream fix: each case fails under some schedule with the
kind in its ``KINDS``) and ``fixed`` (must never fail).

    FUZZFARM_VARIANT=buggy python harnesses/examples_race.py -runs=100000 -seed=1
    FUZZFARM_EXAMPLE=hc09 python harnesses/examples_race.py -runs=100000 -seed=1
"""

import os
import sys

from fuzzfarm.instrument import instrument_imports

with instrument_imports():  # atheris's, with the patched code cached (fuzzfarm/instrument.py)
    from fuzzfarm import gosim  # noqa: F401  (instrumented before anything else imports it)
    from fuzzfarm import examples as _examples

    _CASES = _examples.all_cases()

from fuzzfarm.harness import HarnessError, Program, ScenarioReader, declare

EXAMPLE_ENV = "FUZZFARM_EXAMPLE"


def _pinned():
    """The case ``FUZZFARM_EXAMPLE`` pins now, or None. Read at every run, not once at import: a
    process that runs many inputs (a farm worker's collector, a test session) must not keep the
    pin that happened to be set when it first imported this module (it did, and every later
    ``examples`` input in that process ran the pinned case whatever its last byte said)."""
    name = os.environ.get(EXAMPLE_ENV)
    if not name:
        return None
    try:
        return _examples.load(name)  # imported (and instrumented) above with every case: a lookup
    except KeyError as e:
        raise HarnessError(f"{EXAMPLE_ENV}: {e.args[0]}") from None


try:  # a bad pin stops a fuzzing process at its start with one line
    _pinned()
except HarnessError as e:
    sys.stderr.write(f"fuzzfarm: {e}\n")
    raise SystemExit(2)


def read_scenario(rd: ScenarioReader):
    """The case module: pinned by ``FUZZFARM_EXAMPLE`` (reads nothing), else the last byte."""
    pin = _pinned()
    if pin is not None:
        return pin
    return rd.pick(_CASES)


def program(case, variant: str) -> Program:
    return Program(_examples.main_of(case, variant), run_kw=case.RUN_KW)


harness = declare(__name__, name="examples", variants=("buggy", "fixed"),
                  description="18 real Go concurrency bugs (HC-01..HC-20, DR-01..DR-03), case from the last byte, "
                              "schedule from the rest",
                  decode=read_scenario, program=program,
                  describe=lambda case, variant: f"{case.ID} {case.TITLE} ({variant})")

if __name__ == "__main__":
    harness.fuzz()
