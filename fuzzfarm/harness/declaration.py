"""Declaring a harness: a scenario decoder and a program in, the harness contract out.

A harness module needs ``NAME``, ``VARIANTS``, ``DESCRIPTION``, ``execute`` and ``TestOneInput``
(``fuzzfarm.harness``). Written by hand that is the same twenty lines in every harness; with
:func:`declare` a harness is its port plus the two functions only it can write::

    def read_scenario(rd: ScenarioReader) -> Scenario:   # ints from the END of the input
        return Scenario(writers=rd.int_in_range(1, 3))

    def program(sc: Scenario, variant: str):              # goroutine 1 of the run
        return lambda: port.run(sc.writers, fixed=variant == "fixed")

    harness = declare(__name__, name="toy", variants=("buggy", "fixed"),
                      description="one line", decode=read_scenario, program=program)

    if __name__ == "__main__":
        harness.fuzz()                                    # standalone atheris run

``declare`` puts the contract into the module (``NAME``, ``VARIANTS``, ``DESCRIPTION``,
``FIXED_MAY_FAIL``, ``execute``, ``TestOneInput``, ``decode``, ``signature``) and returns the
:class:`Harness`. The input layout is fixed: ``decode`` reads the scenario from the end of the
input, every byte it leaves at the front is the schedule (docs/HARNESSES.md says why).

Workers never import harness code: they read ``VARIANTS`` and ``FIXED_MAY_FAIL`` from the
source (``fuzzfarm.harness.target``), so pass ``variants=`` and ``fixed_may_fail=`` as literals
(or as names of module-level literal constants).
"""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import Any, Callable

from fuzzfarm.harness import contract as H
from fuzzfarm.harness.knobs import parse_max_starvation

_RUN_OPTIONS = ("max_steps", "check_leaks", "leak_grace", "race", "go_version", "max_starvation_s")


@dataclasses.dataclass
class Program:
    """What ``program`` returns when a bare ``main`` is not enough.

    ``main``: goroutine 1; ``run_kw``: ``gosim.run`` options for this run only (``max_steps``,
    ``check_leaks``, ``leak_grace``; they override the declaration's); ``finish``: called with
    the :class:`~fuzzfarm.harness.Execution` after the run, may edit it (e.g. re-label a
    failure, add an observation to ``scenario``) and returns it.
    """

    main: Callable[[], None]
    run_kw: dict = dataclasses.field(default_factory=dict)
    finish: Callable[[H.Execution], H.Execution] | None = None


@dataclasses.dataclass
class Harness:
    """A declared harness (see the module docstring); build it with :func:`declare`."""

    name: str
    variants: tuple[str, ...]
    description: str
    decode_scenario: Callable[[H.ScenarioReader], Any]
    program: Callable[..., Any]
    describe: Callable[[Any, str], str] | None = None
    fixed_may_fail: frozenset = frozenset()
    run_kw: dict = dataclasses.field(default_factory=dict)
    module: str = "__main__"

    def decode(self, data: bytes):
        """``(scenario, reader)``: the scenario read from the end of ``data``; the schedule is
        ``data[:reader.schedule_end]``."""
        rd = H.ScenarioReader(data)
        return self.decode_scenario(rd), rd

    def execute(self, data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False,
                **options) -> H.Execution:
        """Decode ``data`` and run it in ``variant`` under the deterministic runtime; never raises
        the program's failure (it is in ``Execution.report.failure``). ``options`` go to
        ``program`` (harness-specific knobs, e.g. a test's observer)."""
        if variant not in self.variants:
            raise ValueError(f"unknown variant {variant!r}; choose one of {', '.join(self.variants)}")
        sc, rd = self.decode(data)
        prog = self.program(sc, variant, **options)
        if not isinstance(prog, Program):
            prog = Program(prog)
        text = self.describe(sc, variant) if self.describe is not None else str(sc)
        ex = H.execute_scenario(prog.main, data, 0, text, trace=trace, log_schedule=log_schedule,
                                schedule_end=rd.schedule_end, scenario_short=rd.short,
                                **{**self.run_kw, **prog.run_kw})
        if prog.finish is not None:
            ex = prog.finish(ex)
        return ex

    def test_one_input(self, data: bytes) -> None:
        """The atheris entry point: run in ``$FUZZFARM_VARIANT`` (default: the first variant) and
        raise the failure, unless ``$FUZZFARM_TOLERATE`` names it."""
        H.raise_unless_tolerated(self.execute(data, H.variant_from_env(self.variants)).report.failure)

    def fuzz(self, harness_file: str | None = None) -> None:
        """Standalone run: ``python my_harness.py [libFuzzer flags] [corpus dirs]``."""
        path = harness_file or getattr(sys.modules.get(self.module), "__file__", None) or sys.argv[0]
        H.atheris_main(self.test_one_input, os.path.abspath(path), self.variants)

    def exports(self) -> dict:
        """The module-level names of the harness contract."""
        return {"NAME": self.name, "VARIANTS": self.variants, "DESCRIPTION": self.description,
                "FIXED_MAY_FAIL": self.fixed_may_fail, "execute": self.execute,
                "TestOneInput": self.test_one_input, "decode": self.decode,
                "signature": H.failure_signature, "HARNESS": self}


def _go_version(value, module: str, name: str) -> str:
    """A declared ``go_version``: a Go release, or a go.mod path (relative to the harness
    file) read for its ``go`` line. ValueError naming the harness and what to write."""
    from fuzzfarm.gosim import goversion  # only a harness that declares it pays the import

    if not isinstance(value, str):
        raise ValueError(f"harness {name!r}: go_version={value!r}: write a Go release such as '1.22', or a go.mod path")
    try:
        if os.path.basename(value) == "go.mod":
            base = os.path.dirname(os.path.abspath(getattr(sys.modules.get(module), "__file__", None) or "."))
            return goversion.of_go_mod(os.path.join(base, value))
        goversion.parse(value)
        return value
    except (OSError, ValueError) as e:
        raise ValueError(f"harness {name!r}: go_version: {e}") from None


def declare(module: str, *, name: str, variants=("buggy", "fixed"), description: str,
            decode: Callable[[H.ScenarioReader], Any], program: Callable[..., Any],
            describe: Callable[[Any, str], str] | None = None, fixed_may_fail=(), **run_kw) -> Harness:
    """Declare the harness of module ``module`` (pass ``__name__``) and put its contract into it.

    * ``decode(reader) -> scenario``: read the scenario with ``reader.int_in_range``/``pick``
      (from the end of the input); whatever it does not read is the schedule;
    * ``program(scenario, variant, **options) -> main`` (goroutine 1), or a :class:`Program`;
    * ``describe(scenario, variant) -> str``: the scenario as a reproducer shows it (default:
      ``str(scenario)``);
    * ``fixed_may_fail``: failure signatures ``"kind at f1 <- f2 <- f3"`` the fixed variant may
      still reach (upstream hazards the fix keeps); triage calls such a bucket "kept by the fix",
      not "not fixed", and the proof and fix fuzz go on past them. A bare kind raises ValueError
      (it would excuse a new bug of that kind);
    * ``run_kw``: ``gosim.run`` options for every run (``max_steps``, ``check_leaks``,
      ``leak_grace``; ``race``: the data race detector's default for this harness, True / False /
      None = auto, which ``FUZZFARM_RACE`` overrides; ``go_version``: the Go release the port's
      code is built with, ``"1.22"``, or the path of the upstream ``go.mod`` whose ``go`` line
      says it, relative to the harness file: it decides the timer semantics,
      docs/RUNTIME.md#go-version; ``max_starvation_s``: this harness's own starvation bound,
      seconds, None (no bound in time) or ``"label"``, which wins over the campaign's and the
      worker's, docs/timing.md#a-campaigns-own-bound: a program whose clock is scaled, e.g. a Go
      twin counting upstream's seconds in milliseconds, scales the realism bound with it); unset
      ones keep ``gosim.run``'s defaults.
    """
    variants = tuple(variants)
    if not variants or not all(isinstance(v, str) and v for v in variants):
        raise ValueError(f"harness {name!r}: variants must be non-empty names, got {variants!r}")
    bad = sorted(set(run_kw) - set(_RUN_OPTIONS))
    if bad:
        raise TypeError(f"harness {name!r}: unknown option(s) {', '.join(bad)}; choose from {', '.join(_RUN_OPTIONS)}")
    if "go_version" in run_kw:
        run_kw["go_version"] = _go_version(run_kw["go_version"], module, name)
    if "max_starvation_s" in run_kw:
        try:  # a bad bound is an error at import, not a run that searches under another one
            run_kw["max_starvation_s"] = parse_max_starvation(run_kw["max_starvation_s"])
        except ValueError as e:
            raise ValueError(f"harness {name!r}: max_starvation_s: {e}") from None
    bad_hazard = H.fixed_may_fail_error(fixed_may_fail, name)
    if bad_hazard:
        raise ValueError(bad_hazard)
    h = Harness(name, variants, description, decode, program, describe, frozenset(fixed_may_fail), dict(run_kw), module)
    mod = sys.modules.get(module)
    if mod is not None:
        for key, value in h.exports().items():
            setattr(mod, key, value)
    return h
