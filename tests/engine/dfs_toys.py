"""Scenarios where the exhaustive search's reduction matters (never registered).

The last input byte picks n (2 + byte % 4; no byte: 2), the rest is the schedule.

* ``independent``: main starts n goroutines and returns; each locks and unlocks its own mutex
  twice and writes its own map. Every interleaving is the same up to reordering steps that
  touch nothing in common: one schedule class.
* ``racing``: the same, plus every goroutine writes one shared map: concurrent map writes.
* ``narrowed``: a "fix" of ``racing`` that takes a lock around goroutine 0's write only; the
  others still write unguarded, so the race is still there.
* ``guarded``: every write to the shared map under one mutex: never fails.
"""

from fuzzfarm import gosim
from fuzzfarm.harness import ScenarioReader, execute_scenario

NAME = "dfs-toys"
VARIANTS = ("independent", "racing", "narrowed", "guarded")
DESCRIPTION = "reduction scenarios for the dfs tests"


def _main(n: int, variant: str):
    def main():
        shared = gosim.Map(name="shared")
        mu = gosim.Mutex(name="shared.mu")
        own = [(gosim.Mutex(name=f"own.mu{i}"), gosim.Map(name=f"own.map{i}")) for i in range(n)]

        def body(i):
            m, d = own[i]
            for _ in range(2):
                m.lock()
                m.unlock()
            d[i] = i
            if variant == "independent":
                return
            guard = variant == "guarded" or (variant == "narrowed" and i == 0)
            if guard:
                mu.lock()
            shared[i] = i
            if guard:
                mu.unlock()

        for i in range(n):
            gosim.go(body, i, name=f"g{i}")

    return main


def execute(data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False):
    rd = ScenarioReader(data)
    n = 2 + rd.int_in_range(0, 255) % 4
    return execute_scenario(_main(n, variant), data, 0, f"{variant} n={n}", trace=trace, log_schedule=log_schedule,
                            schedule_end=rd.schedule_end, scenario_short=rd.short)


def TestOneInput(data: bytes) -> None:
    execute(data, "racing").report.raise_failure()
