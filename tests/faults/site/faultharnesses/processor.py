#!/usr/bin/env python3
"""ff-processor (test only): exactly example case HC-20 (client-go's sharedProcessor deadlock,
docs/CASES.md#hc-20) as its own harness, so a farm campaign can be run on that one case: the
product's ``examples`` harness picks the case from the input's last byte, and its pin
(``FUZZFARM_EXAMPLE``) is an environment variable of the fuzzing process, which a campaign does
not carry to the farm's workers.

The programs are the example module's own ``buggy``/``fixed`` (no copy of the port), run as
``harnesses/examples_race.py`` runs a pinned case: the scenario reads no byte, the whole input
is the schedule. The bug needs ``processor.run`` kept runnable through a whole resync period
(1 virtual second, over the 0.1 s realism bound), so the default campaign finds it only in the
runs that search without the bound, and labels its bucket with that need (docs/timing.md).
"""

from fuzzfarm.instrument import instrument_imports

with instrument_imports():  # as harnesses/examples_race.py: the case's code instrumented for atheris
    from fuzzfarm import gosim  # noqa: F401  (instrumented before anything else imports it)
    from fuzzfarm import examples as _examples

    _CASE = _examples.load("hc20")

from fuzzfarm.harness import Program, ScenarioReader, declare


def read_scenario(rd: ScenarioReader):
    """The pinned case: reads nothing (as ``examples`` with ``FUZZFARM_EXAMPLE=hc20``)."""
    return _CASE


def program(case, variant: str) -> Program:
    return Program(_examples.main_of(case, variant), run_kw=case.RUN_KW)


harness = declare(__name__, name="ff-processor", variants=("buggy", "fixed"),
                  description="test only: example case HC-20 pinned (client-go sharedProcessor, "
                              "distribute before run), the whole input is the schedule",
                  decode=read_scenario, program=program,
                  describe=lambda case, variant: f"{case.ID} {case.TITLE} ({variant})")

if __name__ == "__main__":
    harness.fuzz()
