"""The harness contract and the harness registry.

A harness is a module (installed with fuzzfarm, registered under the entry-point group
``fuzzfarm.harnesses``) that defines:

* ``NAME`` (str), ``VARIANTS`` (tuple of str, first is the default, usually
  ``("buggy", "fixed")``), ``DESCRIPTION`` (one line);
* ``execute(data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False)
  -> Execution``: decode ``data`` into a scenario and run it under the deterministic runtime;
  never raises the program's failure (it is in ``Execution.report.failure``);
* ``TestOneInput(data: bytes)``: the atheris entry point; raises the failure.

and, for standalone use, ends with ``if __name__ == "__main__": atheris_main(TestOneInput, __file__)``.
:func:`declare` (``fuzzfarm.harness.declaration``) writes all of this from a scenario decoder and a program;
docs/HARNESSES.md is the guide.
A harness reads its scenario from the end of the input with :class:`ScenarioReader` and hands
the front to :func:`execute_scenario` as the schedule, so that a run driven by another strategy
can be written back as a bytes reproducer (:meth:`Execution.as_bytes_input`).
Workers resolve harnesses by registered name only; a submit never carries code or a path.
"""

from __future__ import annotations

from .knobs import (  # noqa: F401 - re-exported
    DEFAULT_MAX_STARVATION_S, LABEL, LIFT_ONE_IN, MAX_STARVATION_ENV, bound_words, is_realistic,
    max_starvation_s, max_starvation_text, parse_max_starvation, starvation_need, starved_goroutines
)
from .contract import (  # noqa: F401 - re-exported
    Execution, FAILING_LINE, HarnessError, LIBFUZZER_DEFAULTS, MAX_INPUT_BYTES, RACE_ENV, SIGNATURE_LINE,
    ScenarioReader,
    TOLERATED_LINE, TOLERATE_ENV, VARIANT_ENV, atheris_main, bucket_signature, check_variant,
    execute_scenario, failure_signature, fixed_may_fail_error, libfuzzer_args, on_threads,
    race_detector, race_from_env, raise_unless_tolerated, schedule_from, variant_from_env
)
from .registration import ENTRY_POINT_GROUP, RESTART_HINT, refresh_installed  # noqa: F401 - re-exported
from .target import Target, get, registry  # noqa: F401 - re-exported

# The declaration API (fuzzfarm.harness.declaration) is part of this contract: `from fuzzfarm.harness import declare`.
from .declaration import Harness, Program, declare  # noqa: E402,F401 - re-exported
