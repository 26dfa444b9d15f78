"""Helpers for the runtime tests: run a scenario under an explicit schedule.

``Prefer`` is a fixed-priority scheduler written for readability: at every decision it runs
the first goroutine id in ``order`` that is runnable (falling back to "keep running the
current goroutine", else the lowest id); the scenario may change ``order`` while it runs
("from here on G3 goes first"). Timers fire early only when ``fire_timers`` is set.
"""

from __future__ import annotations


from fuzzfarm import gosim
from fuzzfarm.strategies import BytesStrategy, ReplayStrategy
from fuzzfarm.strategies.base import stay_index


class Prefer:
    def __init__(self, *order: int, fire_timers: bool = False, index: int = 0):
        self.order = list(order)
        self.fire_timers = fire_timers
        self.index = index
        self.picks: list[int] = []

    def begin(self, rt) -> None:
        pass

    def pick(self, runnable, current, timer: bool) -> int:
        if timer and self.fire_timers:
            return len(runnable)
        for gid in self.order:
            for i, g in enumerate(runnable):
                if g.gid == gid:
                    self.picks.append(gid)
                    return i
        i = stay_index(runnable, current)
        self.picks.append(runnable[i].gid)
        return i

    def pick_index(self, n: int, what: str) -> int:
        return min(self.index, n - 1)


def run_bytes(main, data: bytes = b"", **kw) -> gosim.RunReport:
    return gosim.run(main, strategy=BytesStrategy(data), **kw)


def run_prefer(main, *order: int, strategy: Prefer | None = None, **kw) -> gosim.RunReport:
    return gosim.run(main, strategy=strategy or Prefer(*order), **kw)


def run_replay(main, decisions, **kw) -> gosim.RunReport:
    return gosim.run(main, strategy=ReplayStrategy(decisions), **kw)


def ok(report: gosim.RunReport) -> gosim.RunReport:
    """Assert the run did not fail (showing the dump if it did)."""
    assert report.failure is None, report.failure.render()
    return report


def fails(report: gosim.RunReport, cls, gid: int | None = None) -> gosim.GoFailure:
    """Assert the run failed with ``cls`` (in goroutine ``gid`` when given)."""
    f = report.failure
    assert f is not None, "expected a failure, the run passed"
    assert isinstance(f, cls), f.render()
    if gid is not None:
        assert f.goroutine == gid, f.render()
    return f


