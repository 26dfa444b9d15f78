"""Data races in the upstream code of the checker seed port (both variants), found by the
detector now that the port declares upstream's plain fields ``gosim.Shared``
(docs/ports/clusterloader2.md#shared).

Upstream ``Dispose`` (wait_for_controlled_pods.go, perf-tests 83e45df022ca and 19927c1a477e)
writes ``w.isRunning = false`` before it takes ``w.lock``; the worker's ``handleObject`` reads
``w.isRunning`` under ``w.lock``. Nothing orders a worker's read after main's last lock before
Dispose: ``-race`` would report it. The harness runs with the detector off by default (its
report is a production crash); ``FUZZFARM_RACE=on`` / ``race_detector(True)`` turns it on, and
the harness's ``FIXED_MAY_FAIL`` lists the race so a fix verdict does not blame PR #2220.
"""

import pytest

from fuzzfarm import gosim
from fuzzfarm.harness import failure_signature, race_detector
from fuzzfarm.ports.clusterloader2 import wait_for_controlled_pods as W

# found by a seeded search (random.Random(7), first input that races on both variants)
FOUND = bytes.fromhex(
    "e44da7f2370d9e260e27136550a4a3a6d07f5c0c332f8b1224083fd22b902f8911e81818f8c99d5d5d983195"
    "7504d90e945de2e8f54ee781cc75f636d85099095aa300165a67036f9b540d6b8f0be21124179c3dd9f73817"
    "ce6e118d264aad6cb6dd210faf94acd3cf92c190237cb11f5d108cf259302639")
IS_RUNNING_RACE = "data race at WaitForControlledPods.dispose <- WaitForControlledPods.handle_object"


@pytest.fixture
def checker_harness():
    from fuzzfarm import harness as H

    return H.get("checker").load()


@pytest.mark.parametrize("variant", ["fixed", "buggy"])
def test_dispose_writes_is_running_unordered_with_handle_object(checker_harness, variant):
    with race_detector(True):
        f = checker_harness.execute(FOUND, variant).report.failure
    assert isinstance(f, gosim.DataRace), f and f.render()
    assert f.location == "WaitForControlledPods.is_running"
    assert f.access[:2] == ("Write", 1) and f.access[3].func == "WaitForControlledPods.dispose"
    assert f.previous[0] == "Read" and f.previous[3].func == "WaitForControlledPods.handle_object"
    assert f.crash_state == ["WaitForControlledPods.dispose", "WaitForControlledPods.handle_object"]
    assert failure_signature(f) == IS_RUNNING_RACE
    assert IS_RUNNING_RACE in checker_harness.FIXED_MAY_FAIL  # kept by the fix, not "not fixed"


def test_the_harness_default_has_the_detector_off(checker_harness):
    f = checker_harness.execute(FOUND, "fixed").report.failure
    assert f is None or f.kind != "data race", f.render()


def test_without_the_declaration_the_same_input_has_no_data_race(checker_harness, monkeypatch):
    monkeypatch.setattr(W.WaitForControlledPods, "is_running", False)  # a plain field again
    with race_detector(True):  # Maps checked, every edge tracked: nothing else races here
        f = checker_harness.execute(FOUND, "fixed").report.failure
    assert f is None or f.kind != "data race", f.render()


@pytest.mark.parametrize("setting, races", [("on", True), ("off", False)])
def test_a_workers_race_setting_reaches_its_replay_children(monkeypatch, setting, races):
    """``FUZZFARM_RACE`` set where the farm runs reaches the harness processes it starts (the
    engine's child environment lets only named variables through, fuzzfarm/harness/child.py)."""
    from fuzzfarm import harness as H
    from fuzzfarm.collector.replay import replay

    monkeypatch.setenv("FUZZFARM_RACE", setting)
    out = replay(H.get("checker"), "fixed", FOUND)
    raced = out["kind"] == "data race" and out["crash_state"] == ["WaitForControlledPods.dispose",
                                                                  "WaitForControlledPods.handle_object"]
    assert raced is races, (out["kind"], out["crash_state"])
