#!/usr/bin/env python3
"""Toy ``shared_map``: n builders shallow-copy one options struct and write its inner map.

Main builds ``options = {"labels": Map(a, b)}`` and starts n builders; each shallow-copies the
options (the copy shares the inner ``Map``, as copying a Go struct copies the map reference)
and writes every entry of the inner map: two builders writing at once are Go's ``concurrent
map writes``. Fixed: each builder clones the inner map first (``maps.Clone``) and writes its
own. Main waits for all of them. The last input byte picks n: 2 + byte % 3 (no byte: 2); the
rest is the schedule.
"""

from fuzzfarm import gosim
from fuzzfarm.harness import ScenarioReader, execute_scenario

NAME = "shared_map"
VARIANTS = ("buggy", "fixed")
DESCRIPTION = "toy: builders write the inner map of a shallow-copied options struct"


def _main(n: int, fixed: bool):
    def main():
        options = {"labels": gosim.Map({"a": "1", "b": "2"}, name="options.labels")}
        wg = gosim.WaitGroup(name="builders")

        def builder(i):
            try:
                mine = dict(options)  # shallow copy: the inner map is shared
                if fixed:
                    mine["labels"] = options["labels"].clone(name=f"labels.{i}")
                labels = mine["labels"]
                for k in ("a", "b"):
                    labels[k] = f"builder-{i}"
            finally:
                wg.done()

        wg.add(n)
        for i in range(n):
            gosim.go(builder, i, name=f"builder{i}")
        wg.wait()

    return main


def execute(data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False):
    rd = ScenarioReader(data)
    n = 2 + rd.int_in_range(0, 2)
    return execute_scenario(_main(n, variant == "fixed"), data, 0, f"shared_map n={n} ({variant})", trace=trace,
                            log_schedule=log_schedule, schedule_end=rd.schedule_end, scenario_short=rd.short)


def TestOneInput(data: bytes) -> None:
    execute(data, "buggy").report.raise_failure()
