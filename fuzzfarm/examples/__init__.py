"""Real Go concurrency bugs from the Kubernetes ecosystem as small gosim scenarios: bugs that
crash or hang (HC-..) and data races that only ``go test -race`` reports (DR-..,
docs/ports/race_examples.md); ``CASE_NAMES`` lists them all.

Each module (retold in ``docs/CASES.md``; issue/PR numbers in the module
docstring) exposes:

* ``buggy()`` / ``fixed()``: the scenario's main function before and after the upstream fix;
* ``ID`` (e.g. ``"HC-01"``), ``TITLE``, ``SOURCE``, ``DEPTH`` (ordering constraints);
* ``KIND``: the failure kind the buggy form ends with (a ``GoFailure.kind``), ``KINDS``: every
  kind it may legitimately end with (``KIND`` first), ``EXC_CLASS`` for goroutine panics;
* ``RUN_KW``: keyword arguments for ``gosim.run`` (leak check, grace, step limit).

The fixed form must never fail under any schedule. ``CASE_NAMES`` lists the modules in a fixed
order (the ``examples`` harness picks one from the first input byte). A module with
``HARD = True`` is a hard case (docs/CASES.md#hard-cases: depth 3, measured against stress by
``benchmarks/hard_cases.py``); its tests live in ``tests/gosim/test_hard_cases.py``.

Every function of a case module declares the upstream Go function and ``file.go:line`` it stands
for (``gosim.go_func``), or says it is scaffolding (``gosim.not_ported``); each module's docstring
names the commit its Go lines are from (``tests/ports/test_examples_go_names.py``).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from fuzzfarm.gosim import not_ported

CASE_NAMES = (
    "hc01_leader_cancel",
    "hc03_lock_order",
    "hc04_helm_get_map",
    "hc06_reshard_close",
    "hc08_watch_send_closed",
    "hc09_wg_add_during_wait",
    "hc10_elected_wg_negative",
    "hc11_poll_until_leak",
    "hc12_perform_leak",
    "hc15_cache_check_then_act",
    "dr01_leader_observed_record",
    "dr02_deferred_client_config",
    "dr03_delegating_logger",
    "hc16_simple_token_deadlock",
    "hc17_policy_stop_wait",
    "hc18_spdy_write_close",
    "hc19_workqueue_drain_shutdown",
    "hc20_processor_listener_start",
)


@not_ported("the examples package's loader, not part of any case")
def load(name: str) -> ModuleType:
    """The example module ``name`` (a ``CASE_NAMES`` entry, or its ``hcNN`` prefix, or its
    ``ID``). Raises KeyError naming the known cases."""
    key = name.lower().replace("-", "")
    for full in CASE_NAMES:
        if key in (full, full.split("_", 1)[0]):
            return importlib.import_module(f"{__name__}.{full}")
    raise KeyError(f"unknown example {name!r}; known: {', '.join(c.split('_', 1)[0] for c in CASE_NAMES)}")


@not_ported("the examples package's loader, not part of any case")
def all_cases() -> list[ModuleType]:
    """Every example module, in ``CASE_NAMES`` order."""
    return [load(n) for n in CASE_NAMES]


@not_ported("the examples package's loader, not part of any case")
def main_of(case: ModuleType, variant: str):
    """``case.buggy`` or ``case.fixed``. Raises ValueError for another variant."""
    if variant not in ("buggy", "fixed"):
        raise ValueError(f"unknown variant {variant!r}: choose buggy or fixed")
    return getattr(case, variant)
