"""A program whose invariant (total == sum of the adds) breaks at a known Go function: every
access is locked (no data race), but ``(*Store).Compact`` zeroes the total, so whether the final
assertion fails and who wrote the total last depend on the schedule. ``WRITES`` records, outside
gosim, which function really wrote it last: the ground truth the reports are checked against.
Also a harness module (``--module=invariant_program``): input = the schedule."""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import go_func, not_ported
from fuzzfarm.harness import execute_scenario

NAME = "invariant"
VARIANTS = ("buggy",)
DESCRIPTION = "an invariant broken by (*Store).Compact, for fuzzfarm's own tests"

WRITES: list[str] = []  # the ground truth: which function wrote Store.total, in order


class Store:
    total = gosim.Shared(0)  # Go: total int, guarded by mu
    adds = gosim.Shared(0)  # Go: adds int, guarded by mu

    def __init__(self):
        self.mu = gosim.Mutex("store.mu")


@go_func("(*Store).Add", "store.go:12")
def add(s: Store, k: int) -> None:
    with s.mu:
        t = s.total
        s.total = t + k  # :14
        WRITES.append("(*Store).Add")
        s.adds = s.adds + k


@go_func("(*Store).Compact", "store.go:20")
def compact(s: Store) -> None:
    with s.mu:
        s.total = 0  # :22 BUG: drops what Add counted
        WRITES.append("(*Store).Compact")


@not_ported("scenario driver: two adds and a compaction, then the invariant")
def main(extra_read: bool = False) -> None:
    WRITES.clear()
    s = Store()
    wg = gosim.WaitGroup("wg")
    wg.add(3)

    def run(fn, *args):
        fn(*args)
        wg.done()

    gosim.go(run, add, s, 1, name="add1")
    gosim.go(run, compact, s, name="compact")
    gosim.go(run, add, s, 2, name="add2")
    wg.wait()
    if extra_read:
        expected = s.adds  # a read of another location before the assertion's own line
    else:
        expected = 3
    assert s.total == expected, f"total {s.total} != {expected}"


@not_ported("harness entry: the whole input is the schedule")
def execute(data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False):
    return execute_scenario(main, data, 0, "two adds and a compaction", trace=trace, log_schedule=log_schedule)


@not_ported("harness entry for atheris")
def TestOneInput(data: bytes) -> None:
    execute(data, "buggy").report.raise_failure()
