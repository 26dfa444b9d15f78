"""A program whose only shared state is a map, against its Go twin under ``go test -race``.

One goroutine writes ``m["a"]``, another reads it, nothing orders them: Go's ``-race`` reports
``WARNING: DATA RACE`` (mapassign's ``racewritepc`` and mapaccess's ``racereadpc`` on the map
header) whether or not the two overlapped in time; with a mutex around both accesses it reports
nothing. gosim with the detector on from the start (``race=True``: ``FUZZFARM_RACE=on``, a
harness's ``race=True``) must say the same; ``race=False`` is the plain build (no race, only the
``concurrent map ...`` fatals on an overlap).

The default mode (``race=None``, docs/RUNTIME.md#race) does not race-check a Map until a
``Shared``/``Var`` access starts the detector, so there it misses what ``-race`` reports: the
two ``xfail(strict=True)`` cases below are that gap (a map-only program; a map write made before
the detector started, read after). They turn red (XPASS) once the default mode checks maps
from the start of the run; then drop the marks and update docs/RUNTIME.md and docs/HARNESSES.md.
"""

from __future__ import annotations

import pytest

from fuzzfarm import gosim
from fuzzfarm.gosim import DataRace
from fuzzfarm.strategies import BytesStrategy

from fuzzfarm.gotool import run_go
from tests.go_fixtures import go  # noqa: F401 - the fixture
from gosim_helpers import fails, ok, run_prefer

_GO_MOD = "module maprace\n\ngo 1.21\n"

# The twin of ``_program`` below: same goroutines, same accesses, same (lack of) ordering.
_GO_TEST = """package maprace

import (
	"sync"
	"testing"
	"time"
)

func TestMapUnordered(t *testing.T) {
	m := map[string]int{}
	go func() { m["a"] = 1 }()
	go func() { _ = m["a"] }()
	time.Sleep(10 * time.Millisecond) // a sleep orders nothing for -race
}

func TestMapWriteThenMainReads(t *testing.T) {
	m := map[string]int{}
	go func() { m["a"] = 1 }()
	time.Sleep(10 * time.Millisecond)
	flag := 1 // the port's Shared field: a plain variable, no synchronisation
	_ = flag
	_ = m["a"]
}

func TestMapMutex(t *testing.T) {
	m := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); mu.Lock(); m["a"] = 1; mu.Unlock() }()
	go func() { defer wg.Done(); mu.Lock(); _ = m["a"]; mu.Unlock() }()
	wg.Wait()
}
"""


def _program(locked: bool):
    def main():
        m = gosim.Map(name="m")
        mu = gosim.Mutex("mu")
        wg = gosim.WaitGroup("wg")
        wg.add(2)

        def writer():
            if locked:
                with mu:
                    m["a"] = 1
            else:
                m["a"] = 1
            wg.done()

        def reader():
            if locked:
                with mu:
                    m.get("a")
            else:
                m.get("a")
            wg.done()

        gosim.go(writer, name="writer")
        gosim.go(reader, name="reader")
        if locked:
            wg.wait()
        else:
            gosim.sleep(0.01)  # as the twin: the WaitGroup would order nothing between G2 and G3
            wg.wait()           # anyway, but the twin sleeps, so the port sleeps too
    return main


@pytest.fixture(scope="module")
def go_says(go, tmp_path_factory):  # noqa: F811
    """Each twin test's outcome under ``go test -race``: True = ``WARNING: DATA RACE``."""
    d = tmp_path_factory.mktemp("maprace")
    (d / "go.mod").write_text(_GO_MOD)
    (d / "map_test.go").write_text(_GO_TEST)
    out = {}
    for name in ("TestMapUnordered", "TestMapWriteThenMainReads", "TestMapMutex"):
        # several iterations in one binary (report de-duplication off, so each run's race is counted)
        p = run_go(["test", "-race", "-count=5", "-run", f"^{name}$", "."], str(d),
                   env={"GORACE": "halt_on_error=1"})
        raced = "WARNING: DATA RACE" in p.stdout + p.stderr
        assert raced or p.returncode == 0, p.stdout + p.stderr  # no other failure
        out[name] = raced
    return out


@pytest.mark.parametrize("writer_first", [True, False])
def test_an_unordered_map_write_and_read_is_the_data_race_go_reports(go_says, writer_first):
    assert go_says["TestMapUnordered"], "Go's -race did not report the twin's race"
    order = (2, 3) if writer_first else (3, 2)  # no overlap in either order
    f = fails(run_prefer(_program(False), *order, race=True), DataRace)
    assert f.location == "m"
    assert {f.access[0], f.previous[0]} == {"Read", "Write"}
    ok(run_prefer(_program(False), *order, race=False))  # the plain build: no overlap, no fatal


class Box:
    flag = gosim.Shared(default=0)


def _map_then_shared():
    """G2 writes the map before anything starts the detector; then G1 touches a Shared field
    (the detector starts: this run is race-checked) and reads the map, unordered with G2."""
    def main():
        m = gosim.Map(name="m")
        gosim.go(lambda: m.__setitem__("a", 1), name="writer")
        gosim.sleep(0.01)  # a sleep orders nothing for -race
        b = Box()
        b.flag = 1
        m.get("a")
    return main


def test_a_map_write_then_an_unordered_read_by_main_is_a_race_with_the_detector_on(go_says):
    assert go_says["TestMapWriteThenMainReads"], "Go's -race did not report the twin's race"
    f = fails(run_prefer(_map_then_shared(), 2, 3, race=True), DataRace, gid=1)
    assert f.location == "m" and f.access[0] == "Read" and f.previous[0] == "Write"


@pytest.mark.xfail(strict=True, reason="race=None does not check Map accesses made before a "
                   "Shared/Var access starts the detector (docs/RUNTIME.md#race); go test -race reports them")
@pytest.mark.parametrize("program", ["map_only", "map_write_before_the_detector_started"])
def test_default_mode_reports_the_map_race_go_test_race_reports(go_says, program):
    assert go_says["TestMapUnordered"] and go_says["TestMapWriteThenMainReads"]
    main = _program(False) if program == "map_only" else _map_then_shared()
    f = fails(run_prefer(main, 2, 3), DataRace)
    assert f.location == "m"


def test_map_accesses_ordered_by_a_mutex_race_neither_in_go_nor_in_gosim(go_says):
    assert not go_says["TestMapMutex"], "Go's -race reported the locked twin"
    for seed in range(20):
        data = bytes((seed * 37 + i * 11) % 256 for i in range(64))
        ok(gosim.run(_program(True), strategy=BytesStrategy(data)))
        ok(gosim.run(_program(True), strategy=BytesStrategy(data), race=True))
