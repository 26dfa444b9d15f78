"""``submit --wait`` returns once every bucket is verified and fix-checked (``fix_checked``),
proofs still running named (``proving``); ``--wait-proofs`` (and ci, demo) wait for the campaign
to be ``settled``. Real redis-server; the collector stand-ins of test_triage_jobs."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from fuzzfarm.farm import store as S
from fuzzfarm.farm import triage
from test_triage_jobs import _camp, _intake, _triage_all, _with_proof, col  # noqa: F401 - col is a fixture


def test_wait_returns_at_fix_checked_and_names_the_proofs_still_running(store, col, monkeypatch):
    from fuzzfarm.cli._app import CLIError
    from fuzzfarm.cli.campaigns import wait_campaigns
    calls, proves = [], []
    _with_proof(col, monkeypatch, calls)
    cid = _camp(store)
    bid = _intake(store, cid, b"X1", [])
    store.update_job(cid, 0, state=S.JOB_DONE)
    s = store.campaign_summary(cid)
    assert not s["fix_checked"] and not s["settled"]  # still new: its verdict is not stored
    _triage_all(store, bid, enqueue_prove=proves.append)
    assert store.bucket(bid)["state"] == S.B_PROVING and calls == []
    s = store.campaign_summary(cid)
    assert s["fix_checked"] and not s["settled"] and s["proving"] == [bid]
    con = Console(file=io.StringIO(), width=80)
    assert wait_campaigns(store, [cid], console=con, until="fix_checked", timeout=5, poll_s=0.05)[cid]["proving"] == [bid]
    with pytest.raises(CLIError):  # the proof is not stored: a wait for it does not end
        wait_campaigns(store, [cid], console=con, timeout=0.3, poll_s=0.05)
    assert triage.prove_step(store, bid, owner="p")
    s = store.campaign_summary(cid)
    assert s["fix_checked"] and s["settled"] and s["proving"] == []
