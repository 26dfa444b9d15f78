"""Fault and bad-input tests: a real redis-server (AOF) and real Celery worker processes, started
by the product's own launcher (:mod:`fuzzfarm.farm.embedded`, as ``tests/farm_fixtures.py``),
whose workers also see the test-only harnesses of ``tests/faults/site`` (``ff-crashy``,
``ff-poison``, ``ff-hang``, ``ff-hog``, ``ff-syntax``, ``ff-nodep``) through PYTHONPATH. Those are
never registered by the product: the harness site is on no other process's path."""

from __future__ import annotations

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # faultlib

import faultlib  # noqa: E402

from farm_fixtures import _need_redis  # noqa: E402
from fuzzfarm.farm.embedded import Farm  # noqa: E402


@pytest.fixture(scope="package")
def fault_farm(tmp_path_factory):
    """redis-server + a fuzz worker (-c 2) + a collect worker (-c 1), test harnesses installed."""
    _need_redis()
    f = Farm(workdir=str(tmp_path_factory.mktemp("faultfarm")), fuzz_concurrency=2, collect_concurrency=1,
             worker_env=faultlib.worker_env())
    f.start()
    yield f
    for w in f.workers:  # idle by now; SIGQUIT stops are tested in test_fleet_restart.py
        faultlib.hard_stop(w)
    f.stop()
    for w in f.workers:
        assert not w.alive(), f"worker {w.name} outlived the farm"
    faultlib.assert_no_fuzzers_left()


@pytest.fixture
def fst(fault_farm):
    """A Store on the fault farm's Redis (flushed) with this process publishing to it."""
    with faultlib.publishing_to(fault_farm.url) as st:
        st.r.flushdb()
        yield st


@pytest.fixture
def site(monkeypatch):
    """The test harnesses importable here and in the replay children this process starts
    (PYTHONPATH), a 1 s proof budget, and the collector's default starvation bound."""
    monkeypatch.syspath_prepend(faultlib.SITE)
    monkeypatch.setenv("PYTHONPATH", faultlib.SITE)
    monkeypatch.setenv("FUZZFARM_PROVE_BUDGET_S", "1")
    monkeypatch.delenv("FUZZFARM_MAX_STARVATION_S", raising=False)
    return faultlib.SITE


@pytest.fixture
def site_on_path(monkeypatch):
    """The test harnesses importable and registered in this (pytest) process too."""
    monkeypatch.syspath_prepend(faultlib.SITE)
    yield faultlib.SITE
