"""gosim against real Go, construct by construct (docs/RUNTIME.md#conformance).

Each case is a Go function in ``go/*.go`` and its gosim twin in ``conform_*.py`` (see
``conform.py`` for what is compared and how). Go's outcomes come from fresh processes of one
program built once per session (``-race`` and plain); gosim's from a bounded exhaustive search
of the twin's schedules.
"""

from __future__ import annotations

import os

import pytest

import conform
import conform_plain  # noqa: F401  (registers the cases)
import conform_more  # noqa: F401
import conform_race  # noqa: F401
import conform_timers  # noqa: F401
from conform import CASES, DEADLOCK, RACE, ok
from fuzzfarm import gosim


@pytest.fixture(scope="session")
def go_bins(go, tmp_path_factory):
    return conform.build(str(tmp_path_factory.mktemp("conformance")))


@pytest.fixture(scope="session")
def old_go_bins(go, tmp_path_factory):
    """The Go half built by Go 1.26, run with GODEBUG=asynctimerchan=1 (Go <= 1.22 timers)."""
    try:
        return conform.build_old_timers(str(tmp_path_factory.mktemp("conformance-old")))
    except FileNotFoundError as e:  # as tests/go_fixtures.need_go: CI never passes by skipping
        if os.environ.get("FUZZFARM_REQUIRE_GO") == "1":
            pytest.fail(f"{e} (FUZZFARM_REQUIRE_GO=1)")
        pytest.skip(str(e))


@pytest.fixture(scope="session")
def go_names(go_bins):
    return {conform.key(n): n for n in conform.go_cases(go_bins["plain"])}


def test_every_go_case_has_a_twin_and_back(go_names):
    assert sorted(set(go_names) - set(CASES)) == [], "Go cases without a Python twin"
    assert sorted(set(CASES) - set(go_names)) == [], "Python twins without a Go case"


@pytest.mark.parametrize("k", sorted(CASES), ids=[CASES[k].name for k in sorted(CASES)])
def test_gosim_agrees_with_go(k, go_bins, go_names):
    c = CASES[k]
    if k not in go_names:
        pytest.fail(f"no Go function for {c.name} in tests/conformance/go")
    go = conform.run_go_case(go_bins[c.mode], go_names[k], c)
    found, runs, complete = conform.explore(c)
    assert complete, f"gosim's search of {c.name} did not finish in {runs} runs: lower its bound"
    agree, detail = conform.compare(c, go, set(found), runs)
    if c.differs:
        assert not agree, f"documented difference gone, remove differs= and the docs entry: {detail}"
        return
    assert agree, detail


OLD = sorted(k for k in CASES if CASES[k].old is not None)


@pytest.mark.parametrize("k", OLD, ids=[CASES[k].name for k in OLD])
def test_gosim_agrees_with_go_under_old_timers(k, old_go_bins, go_names):
    """The timer cases under Go <= 1.22 timers: Go 1.26 with GODEBUG=asynctimerchan=1 against
    gosim with go_version 1.22."""
    c = CASES[k].under_old_timers()
    go = conform.run_go_case(old_go_bins[c.mode], go_names[k], c, godebug=conform.OLD_GODEBUG)
    found, runs, complete = conform.explore(c, go_version=conform.OLD_VERSION)
    assert complete, f"gosim's search of {c.name} did not finish in {runs} runs: lower its bound"
    agree, detail = conform.compare(c, go, set(found), runs)
    if c.differs:
        assert not agree, f"documented difference gone, remove old_differs= and the docs entry: {detail}"
        return
    assert agree, f"under Go <= 1.22 timers: {detail}"


def test_every_timer_case_changes_or_keeps_its_outcome_on_purpose():
    """The cases whose outcomes differ between the timer semantics are the ones this suite
    exists for: at least the stale-value cases must differ, or the old= runs prove nothing."""
    changed = sorted(CASES[k].name for k in OLD if CASES[k].old != CASES[k].expect)
    assert {"timer_stop_after_fire_not_received", "backoff_timer_zero_reset", "timer_len_cap"} <= set(changed)


# -- the machinery can fail ----------------------------------------------------------------

def test_parse_reads_each_runs_outcome():
    out = "\n".join([
        "=== run 0", "result: 1",
        "=== run 1", "==================", "WARNING: DATA RACE", "Write at 0x00c by goroutine 7:",
        "result: 1",
        "=== run 2", "panic: send on closed channel", "", "goroutine 1 [running]:"])
    assert conform.parse(out, hung=False, mode="race") == ["ok:1", RACE, "panic: send on closed channel"]
    assert conform.parse("=== run 0\n", hung=True, mode="race") == [DEADLOCK]
    assert conform.parse("=== run 0\n", hung=True, mode="plain") == ["hang"]
    assert conform.parse("=== run 0\n=== end\n", hung=False, mode="plain") == ["ok"]


def _twin(fn, *expect, mode="race"):
    return conform.Case("twin", fn, frozenset(expect), mode, 2, 25, 2, None)


def test_a_twin_that_misses_a_race_go_reports_is_a_disagreement(go_bins, go_names):
    """LenMapRacesWrite against a twin without the len: Go's race is not reachable in gosim."""
    def no_len():
        m = gosim.Map()
        wg = gosim.WaitGroup()
        wg.add(1)
        gosim.go(lambda: (m.__setitem__(1, 1), wg.done()))
        wg.wait()

    c = _twin(no_len, RACE)
    go = conform.run_go_case(go_bins["race"], go_names["lenmapraceswrite"], c)
    assert go == {RACE: 50}
    found, runs, _ = conform.explore(c)
    agree, detail = conform.compare(c, go, set(found), runs)
    assert not agree and "gosim reached ['ok']" in detail


def test_a_twin_that_reaches_more_than_go_allows_is_a_disagreement(go_bins, go_names):
    """LenMapAfterJoin (Go: ok:1) against a twin that reads before the join: gosim reaches a
    race the case does not allow."""
    def early():
        m = gosim.Map()
        wg = gosim.WaitGroup()
        wg.add(1)
        gosim.go(lambda: (m.__setitem__(1, 1), wg.done()))
        n = len(m)
        wg.wait()
        return str(n)

    c = _twin(early, ok("1"))
    go = conform.run_go_case(go_bins["race"], go_names["lenmapafterjoin"], c)
    assert go == {ok("1"): 50}
    found, runs, _ = conform.explore(c)
    agree, _ = conform.compare(c, go, set(found), runs)
    assert not agree and RACE in found


def test_go_showing_an_undeclared_outcome_is_a_disagreement(go_bins, go_names):
    c = conform.Case("twin", lambda: None, frozenset({ok()}), "plain", 2, 1, 2, None)
    go = conform.run_go_case(go_bins["plain"], go_names["closenilchan"], c)
    assert go == {"panic: close of nil channel": 2}
    assert not conform.compare(c, go, {ok()}, 1)[0]
