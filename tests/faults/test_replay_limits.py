"""A replay's time limit starts after the harness is imported, and a hang costs one bounded replay
(``fuzzfarm/collector/replay.py``, ``runone.LOADED``). Real replay processes of the test harness
``ff-slowload``, whose import takes 3 s: with a 1 s limit its deterministic crash is still filed as
that crash (it used to be a ``timeout``, "not replayable"); its hanging input, reported by
libFuzzer as a ``timeout`` artifact, is replayed once by the intake for the fuzz job's own timeout plus the
grace, not the collector's 30 s."""

from __future__ import annotations

import importlib

import pytest

from fuzzfarm import harness as H

R = importlib.import_module("fuzzfarm.collector.replay")  # the module (the package exports a function of that name)


@pytest.fixture
def slowload(site_on_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", site_on_path)  # the replay processes see the test harnesses too
    return "ff-slowload"


def test_a_slow_import_is_not_the_inputs_time(slowload):
    out = R.replay(slowload, "buggy", b"C", timeout_s=1.0)
    assert out["failed"] and out["kind"] != "timeout", out
    assert "ff-slowload: the input starts with C" in (out["message"] or ""), out
    ok = R.replay(slowload, "buggy", b"x", timeout_s=1.0)
    assert not ok["failed"], ok


def test_an_import_that_never_ends_is_a_harness_error_not_a_timeout(slowload, monkeypatch):
    monkeypatch.setattr(R, "LOAD_TIMEOUT_S", 1.0)
    with pytest.raises(H.HarnessError, match="did not finish importing within 1 s"):
        R.replay(slowload, "buggy", b"C", timeout_s=30.0)


def test_intake_replays_a_hang_for_the_fuzz_jobs_own_timeout_not_the_collectors(slowload, fst, monkeypatch):
    """The fuzz worker records its -timeout with the crash (1 s here); the collector runs with
    another FUZZFARM_TIMEOUT_S (20 s): the intake's one replay of the hanging input lasts the
    job's 1 s + grace (it used to be a full 30 s replay first)."""
    from fuzzfarm.farm import triage

    monkeypatch.setenv("FUZZFARM_TIMEOUT_S", "20")
    monkeypatch.setattr(R, "HANG_GRACE_S", 1.0)
    cid = fst.create_campaign({"harness": slowload, "variant": "buggy", "strategy": "bytes", "jobs": 1,
                               "duration_s": 1.0, "harness_hash": "h" * 64, "version": "0"})
    sha, _ = fst.report_crash(cid, 0, slowload, "buggy", b"H", "timeout", "", fuzz_timeout_s=1)
    queued = []
    bid = triage.intake(fst, cid, slowload, "buggy", sha, enqueue_triage=queued.append)
    b = fst.bucket(bid)
    assert b["kind"] == "timeout", b
    assert b["message"] == "the replay did not finish within 2 s", b
