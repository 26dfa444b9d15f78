"""Reproducible means under any hash seed; flaky at intake stays flaky (issue 29, items 5 and 6).

Every child process runs under PYTHONHASHSEED=0 (the fuzz child, intake, the minimizer, the fix
check) except the verification replays, each under its own seed (recorded). ``ff-hashseed``'s
``buggy`` fails only when a set of strings iterates in a given order: under seed 0 and some
other seeds. Its bucket must say ``k/10, depends on PYTHONHASHSEED``, never ``10/10``.
``ff-hashseed``'s ``fixed`` is a 10%-flaky non-fix of ``always`` (a bug that always fails),
passing under seed 0: a bucket marked flaky only at intake, whose verify replays all failed, is
judged as flaky by its fix check (replays under their own seeds, the Fisher test): never
``fixed``. Real redis-server, real fresh-process replays; the triage steps run here."""

from __future__ import annotations

import json

import pytest

import faultlib
from fuzzfarm.farm import store as S
from fuzzfarm.collector import verdict as V


@pytest.fixture(autouse=True)
def site(monkeypatch):
    monkeypatch.syspath_prepend(faultlib.SITE)
    monkeypatch.setenv("PYTHONPATH", faultlib.SITE)
    monkeypatch.setenv("FUZZFARM_PROVE_BUDGET_S", "2")


def _bucket(st, variant: str, monkeypatch, *, fixed_variant: str | None = None, intake_replays: int | None = None):
    from fuzzfarm.farm import triage
    monkeypatch.setattr(triage, "fix_variant", lambda h, v: fixed_variant)
    monkeypatch.setattr(triage, "MINIMIZE_BUDGET_S", 5)
    monkeypatch.setattr(triage, "FIX_RANDOM_RUNS", 5)
    monkeypatch.setattr(triage, "FIX_PCT_RUNS", 5)
    assert triage.VERIFY_RUNS == 10 and triage.FIX_FLAKY_REPLAYS == 20
    cid = st.create_campaign({"harness": "ff-hashseed", "variant": variant, "strategy": "bytes", "jobs": 1,
                              "duration_s": 1.0, "harness_hash": "h" * 64, "version": "0"})
    sha, _ = st.report_crash(cid, 0, "ff-hashseed", variant, b"")
    bid = triage.intake(st, cid, "ff-hashseed", variant, sha, enqueue_triage=lambda _b: None)
    assert bid and st.bucket(bid)["intake_replays"] == 1  # it failed at once under seed 0
    if intake_replays is not None:  # as intake records it when its first replays passed
        st.update_bucket(bid, intake_flaky=True, intake_replays=intake_replays)
    assert triage.minimize(st, bid, owner="m", enqueue_next=lambda _b: None)
    assert triage.verify(st, bid, owner="v", enqueue_next=lambda _b: None)
    assert triage.fix_check(st, bid, owner="f", enqueue_triage=lambda _b: None)  # the final artifact too
    return cid, bid


def test_a_hash_seed_dependent_bug_is_labelled_never_10_of_10(store, monkeypatch):
    from fuzzfarm.collector import replay
    assert replay("ff-hashseed", "buggy", b"")["failed"]  # under seed 0, as every run but verify
    cid, bid = _bucket(store, "buggy", monkeypatch)
    b = store.bucket(bid)
    seeds = b["verify_hash_seeds"]
    assert len(seeds) == 10 and len(set(seeds)) == 10 and 0 not in seeds, seeds
    assert 0 < b["verify_ok"] < 10 and b["reproducible"] is False and b["flaky"] is True, b
    assert b["hash_seed_dependent"] is True, b
    label = f"{b['verify_ok']}/10, depends on PYTHONHASHSEED"
    # each failing seed fails again in a fresh process, each passing one passes: recorded, replayable
    for s, sig in zip(seeds, (replay("ff-hashseed", "buggy", b"", hash_seed=s)["signature"] for s in seeds[:4])):
        assert (sig is not None) == (replay("ff-hashseed", "buggy", b"", hash_seed=s)["signature"] is not None)
    from rich.console import Console

    from fuzzfarm import ci_report
    from fuzzfarm.cli.bugs import print_buckets
    from fuzzfarm.views import bucket_rows
    console = Console(record=True, width=240)
    print_buckets(store, cid, console=console, wide=True)
    assert label in console.export_text()
    md = ci_report.markdown(target="ff-hashseed", campaign=cid, summary={},
                            verdicts_=ci_report.verdicts(bucket_rows(store, cid), set()), replay={}, duration_s=1, jobs=1)
    assert label in md and "10/10" not in md, md
    files = store.artifact(bid)
    repro = json.loads(files["repro.json"])
    assert repro["verify_hash_seeds"] == seeds and repro["hash_seed_dependent"] is True
    assert repro["replay_standalone"].startswith("PYTHONHASHSEED=0 python -m fuzzfarm.runone"), repro


def test_a_bug_flaky_for_another_reason_is_not_called_hash_seed_dependent():
    from fuzzfarm.collector import verify
    v = verify("ff-flaky", "buggy", b"F", n=10)
    assert not v.reproducible
    assert v.hash_seed_dependent is not True, v  # os.urandom decides, not the seed (P(wrong) < 0.2%)


def test_flaky_at_intake_stays_flaky_through_the_fix_check(store, monkeypatch):
    """A bucket whose first intake replays passed, whose 10 verify replays all failed, with a
    fixed variant that fails under 1 in 10 hash seeds (never under 0)."""
    from fuzzfarm.collector import replay
    assert not replay("ff-hashseed", "fixed", b"")["failed"]  # what one replay under seed 0 says
    _, bid = _bucket(store, "always", monkeypatch, fixed_variant="fixed", intake_replays=3)
    b = store.bucket(bid)
    assert b["verify_ok"] == b["verify_n"] == 10 and b["flaky"] is True, b
    assert b["buggy_rate"] == [11, 13], b["buggy_rate"]
    flaky = next(c for c in b["fix_evidence"]["checks"] if c["name"] == "flaky replays")
    assert flaky["runs"] == 20 and flaky["failed"] >= 1 and len(set(flaky["hash_seeds"])) == 20, flaky
    assert b["fix_verdict"] == V.NO and b["fixed"] is False, b["fix_summary"]
    assert b["fix_evidence"]["flaky"] is True and b["fix_evidence"]["buggy_rate"] == [11, 13]
    assert b["state"] == S.B_DONE
