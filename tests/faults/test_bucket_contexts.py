"""A bucket's fix verdict holds for the context it was decided under: the starvation bound and
the harness version (farm/recheck.py, docs/timing.md "One bucket, several bounds").

``ff-starved``'s ``early`` variant fails under any bound with one signature; its ``fixed``
variant passes every schedule under the default bound (0.1 s) and fails the same way when the
worker may be starved (``--max-starvation none``). A campaign under the default bound gets
``fixed``; a campaign under ``none`` whose crash lands in the same bucket must not be told
``fixed``: until the bucket's triage ran again under ``none`` its view labels the old verdict
with its bound, then it shows the verdict under ``none``. Real redis, real replay children."""

from __future__ import annotations

import json

import pytest

import faultlib
from fuzzfarm.farm import store as S

# inputs that fail on ``early`` under the default bound and under none, with one signature
X1, X2, X3 = (bytes.fromhex(h) for h in ("5feceb66ffc86f38", "6b86b273ff34fce1", "4b227777d4dd1fc6"))


@pytest.fixture
def site(site, monkeypatch):
    """conftest's ``site`` with small triage budgets."""
    from fuzzfarm.farm import triage
    monkeypatch.setattr(triage, "VERIFY_RUNS", 2)
    monkeypatch.setattr(triage, "MINIMIZE_BUDGET_S", 2)
    monkeypatch.setattr(triage, "FIX_RANDOM_RUNS", 30)
    monkeypatch.setattr(triage, "FIX_PCT_RUNS", 30)
    monkeypatch.setattr(triage, "FIX_FLAKY_REPLAYS", 2)
    return faultlib.SITE


def _campaign(st, bound=None, harness_hash="h" * 64):
    spec = {"harness": "ff-starved", "variant": "early", "strategy": "random", "jobs": 1, "duration_s": 1.0,
            "harness_hash": harness_hash, "version": "0"}
    return st.create_campaign({**spec, **({"max_starvation_s": bound} if bound else {})})


def _intake(st, cid, data, queued):
    from fuzzfarm.farm import triage
    sha, _ = st.report_crash(cid, 0, "ff-starved", "early", data)
    return triage.intake(st, cid, "ff-starved", "early", sha, enqueue_triage=queued.append)


def _triage(st, bid):
    from fuzzfarm.farm import triage
    assert triage.minimize(st, bid, owner=f"m{bid}", enqueue_next=lambda _b: None)
    assert triage.verify(st, bid, owner=f"v{bid}", enqueue_next=lambda _b: None)
    assert triage.fix_check(st, bid, owner=f"f{bid}")
    return st.bucket(bid)


def _row(st, cid=None):
    from fuzzfarm.views import bucket_rows
    from fuzzfarm.views import fix_label as fixed_cell
    (row,) = bucket_rows(st, cid)
    return row, fixed_cell(row)


def test_a_campaign_under_another_bound_gets_its_own_verdict_once(store, site, tmp_path):
    from fuzzfarm import views
    a, b = _campaign(store, "0.1"), _campaign(store, "none")  # 0.1: the bound as a filter
    queued: list[str] = []
    bid = _intake(store, a, X1, queued)
    assert queued == [bid]
    main = _triage(store, bid)
    assert main["fix_verdict"] == "fixed" and main["fixed"] is True, main  # under 0.1 s every schedule passes
    assert main["verdict_context"] == "0.1|" + "h" * 12
    row, cell = _row(store, a)
    assert cell.startswith("fixed") and "under bound" not in cell, cell

    # campaign B (no bound in time) lands in the same bucket: one re-check, queued like a new bucket's triage
    assert _intake(store, b, X2, queued) == bid
    assert len(queued) == 2 and queued[1] != bid, queued
    rid = queued[1]
    assert store.bucket(rid)["max_starvation_s"] == "none" and store.bucket(rid)["recheck_of"] == bid
    assert _intake(store, b, X3, queued) == bid and len(queued) == 2  # another crash of B: no second re-check
    # until it ran, B's view says what the verdict holds for, never a bare "fixed"
    row, cell = _row(store, b)
    assert cell.startswith("fixed") and "(under bound 0.1 s)" in cell, cell
    assert row["fix_verdict"] == "fixed (under bound 0.1 s)" and row["fixed"] is None, row  # JSON: not known for B

    store.update_job(b, 0, state=S.JOB_DONE)
    assert not store.campaign_summary(b)["settled"]  # B's verdict is still being decided
    rec = _triage(store, rid)
    assert store.campaign_summary(b)["settled"]
    assert rec["state"] == S.B_DONE and rec["fix_verdict"] != "fixed" and rec["fixed"] is False, rec
    # B's view: the verdict under "none"; A's still "fixed" under 0.1 s; the bucket itself untouched
    row, cell = _row(store, b)
    assert row["fixed"] is False and not cell.startswith("fixed") and "under bound" not in cell, (row, cell)
    assert row["verdict_context"] == "none|" + "h" * 12 and row["verdict_record"] == rid
    row, cell = _row(store, a)
    assert row["fixed"] is True and cell.startswith("fixed") and "under bound" not in cell, cell
    assert store.bucket(bid)["fix_verdict"] == "fixed"
    # every bucket (no campaign): the latest verdict, labelled with its bound
    row, cell = _row(store)
    assert row["fixed"] is False and "(under bound none" in cell, cell
    # the web view of campaign B's buckets, and B's reproducer, say the same
    (w,) = views.bucket_rows(store, b)
    assert w["fix_word"] != "fixed" and w["fixed"] is False, w
    (w,) = views.bucket_rows(store, a)
    assert w["fix_word"] == "fixed", w
    art = store.artifact(rid)
    repro = json.loads(art["repro.json"])
    assert repro["max_starvation_s"] is None and repro["fix"]["verdict"] != "fixed", repro
    assert "decided under: starvation bound none" in art["failure.txt"].decode()
    assert "decided under: starvation bound 0.1" in store.artifact(bid)["failure.txt"].decode()
    from fuzzfarm.views import download_bucket
    download_bucket(store, rid, str(tmp_path / "b"))  # the record's reproducer, as `fuzzfarm download RECORD`
    assert json.loads((tmp_path / "b" / "repro.json").read_text())["fix"]["context"] == "none|" + "h" * 12


def test_a_newer_harness_version_is_labelled_until_rechecked(store, site):
    from fuzzfarm.farm import recheck
    a, b = _campaign(store, "0.1", harness_hash="6337e9" + "a" * 58), _campaign(store, "0.1", harness_hash="b" * 64)
    queued: list[str] = []
    bid = _intake(store, a, X1, queued)
    store.update_bucket(bid, fixed=True, fix_verdict="fixed", fix_summary="fixed", state=S.B_DONE)  # as triaged
    assert _intake(store, b, X2, queued) == bid and len(queued) == 2
    rid = queued[1]
    assert store.bucket(rid)["harness_hash"] == "b" * 64
    row, cell = _row(store, b)
    assert cell == "fixed (harness 6337e9)", cell
    # a second intake racing the first finds the SET NX key taken: nothing more is queued
    assert recheck.joined(store, store.bucket(bid), b, {"max_starvation_s": "0.1", "harness_hash": "b" * 64},
                          X3, queued.append) == rid and len(queued) == 2
    # re-run under the harness installed now: B's view is that verdict, bare, with the record's Go crash state
    rec = _triage(store, rid)
    row, cell = _row(store, b)
    assert row["fixed"] is True and cell.startswith("fixed") and "harness" not in cell, cell
    assert row["verdict_context"] == "0.1|" + "b" * 12 and row["go_crash_state"] == rec["go_crash_state"]
    assert _row(store, a)[1] == "fixed"


def test_the_default_campaign_checks_the_fix_beyond_the_realism_bound(store, site):
    """Under the default setting (the 0.1 s bound as a label) the fix check searches runs that
    leave the bound too: a fix that only holds while no goroutine is starved past 0.1 s is not
    ``fixed`` (ff-starved's ``fixed`` fails when the worker waits 1 s), and the verdict says
    the setting it was decided under."""
    a = _campaign(store)
    queued: list[str] = []
    bid = _intake(store, a, X1, queued)
    b = _triage(store, bid)
    assert b["max_starvation_s"] == "label" and b["verdict_context"] == "label|" + "h" * 12
    assert b["fix_verdict"] != "fixed" and b["fixed"] is False, b
    assert "decided under: starvation bound label (0.1 s realism bound" in store.artifact(bid)["failure.txt"].decode()


def test_the_farm_wide_view_reads_a_verdict_rechecked_under_the_default_label_bound(store, site):
    """The harness guide's path: a bucket found under the default setting (``label``), the harness
    edited, a campaign under the new hash re-checks it. The farm-wide view (``fuzzfarm crashes``, the
    Bugs page) labels one verdict with the other's context; ``label`` is a bound word, not seconds
    (it was read as a float: a traceback from ``crashes`` and a 500 from the page)."""
    a, b = _campaign(store, "label", harness_hash="6337e9" + "a" * 58), _campaign(store, "label",
                                                                                  harness_hash="b" * 64)
    queued: list[str] = []
    bid = _intake(store, a, X1, queued)
    _triage(store, bid)
    assert _intake(store, b, X2, queued) == bid and len(queued) == 2
    _triage(store, queued[1])
    row, cell = _row(store)  # farm-wide: the latest verdict, labelled with its context
    # (ff-starved's fix fails beyond the bound, which `label` searches: NO)
    assert cell.startswith("NO (under bound label (0.1 s realism bound") and "harness bbbbbb" in cell, cell
