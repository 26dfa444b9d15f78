"""The restart policy shared by ``fuzzfarm up``'s supervisor and ``fuzzfarm worker``
(farm/supervisor.py ``keep_up``), on real processes: a process that exits with 75 (a fault outside
it: Redis away or refusing writes, farm/reconnect.py, farm/watchdog.py) is started again however
often, after a backoff; one that dies otherwise is left stopped after MAX_RESTARTS deaths a minute."""

from __future__ import annotations

import sys
import time

import faultlib
from fuzzfarm.farm import supervisor
from fuzzfarm.farm.supervisor import Service, keep_up, restart


def _run(code: int, rounds: int, monkeypatch) -> Service:
    monkeypatch.setattr(supervisor, "TEMPFAIL_BACKOFF_MAX_S", 0.2)  # the backoff's cap: keep the test short
    s = Service(f"exit-{code}", argv=[sys.executable, "-c", f"raise SystemExit({code})"], logfile=None)
    s.start()
    starts = 1
    deadline = time.monotonic() + 120
    while starts < rounds and s.proc is not None and time.monotonic() < deadline:
        faultlib.wait_until(lambda: not s.alive(), 30, "the process to exit")
        before = s.proc
        keep_up([s], restart)
        if s.proc is not None and s.proc is not before:
            starts += 1
        time.sleep(0.05)
    s.starts = starts
    return s


def test_tempfail_is_restarted_for_ever_with_a_backoff(monkeypatch):
    s = _run(75, supervisor.MAX_RESTARTS + 4, monkeypatch)
    assert s.proc is not None and s.starts == supervisor.MAX_RESTARTS + 4 and s.tempfails >= supervisor.MAX_RESTARTS
    assert s.restarts == []  # never counted as deaths


def test_other_deaths_are_left_stopped_after_the_limit(monkeypatch):
    s = _run(1, supervisor.MAX_RESTARTS + 4, monkeypatch)
    assert s.proc is None and s.starts == supervisor.MAX_RESTARTS + 1
