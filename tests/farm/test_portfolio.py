"""The default ``mix`` strategy (fuzzfarm/farm/portfolio.py, fuzzfarm/strategies/mix.py), against
a real redis-server: it reweights toward the engine whose crashes make new buckets, ``--strategy``
pins one engine, and the walk mix moves its runs to the arm that finds new failures."""

from __future__ import annotations

import dataclasses
import types

import pytest

from fuzzfarm.farm import store as S
from fuzzfarm.farm.store import keys
from fuzzfarm.farm import config, jobs, portfolio
from fuzzfarm.strategies.mix import MixStrategy


@dataclasses.dataclass
class _Stats:
    execs: int = 0
    exec_per_s: float = 0.0
    cov: int = 0
    ft: int = 0
    corpus_size: int = 0
    crashes: int = 0
    elapsed_s: float = 0.0


class _Engine:
    """Runs whatever the slice asks; ``finder`` reports a crash of a new bug each slice, the
    other engines report nothing."""

    def __init__(self, finder: str):
        self.finder, self.calls, self.i = finder, [], 0

    def run_fuzz_job(self, *, harness, variant, strategy, seed, duration_s, corpus, workdir, on_crash, on_stats,
                     timeout_s, rss_limit_mb, prior=None, stats_interval_s=1.0):
        self.calls.append((strategy, prior))
        if strategy == self.finder:
            self.i += 1
            on_crash(types.SimpleNamespace(data=b"bug%d" % self.i, artifact="crash", log_tail=""))
        walk = {"distinct": 10, "arms": {"pct:3": {"runs": 5, "finds": 0, "cost": 500}}} if strategy == "walk-mix" else {}
        return types.SimpleNamespace(stats=_Stats(execs=10, elapsed_s=duration_s), new_corpus=[], crashes=0,
                                     restarts=0, error=None, stopped=False, walk=walk)


@pytest.fixture
def checker_hash():
    from fuzzfarm import harness as H
    try:
        return H.get("checker").source_hash()
    except H.HarnessError as e:
        pytest.skip(str(e))


def _bucket_every_crash(st: S.Store, cid: str, camp: dict) -> None:
    """What the collector's intake does for each new crash: a bucket per input, recorded on it."""
    for sha in sorted(st.r.smembers(S.P + f"campaign:{cid}:crashes")):
        if st.crash(camp["harness"], camp["variant"], sha).get("bucket"):
            continue
        bid, *_ = st.create_or_join_bucket(harness=camp["harness"], variant=camp["variant"], signature=f"sig-{sha}",
                                           input_sha256=sha, fields={"kind": "goroutine panic"})
        st.set_crash(camp["harness"], camp["variant"], sha, bucket=bid)
        st.mark_intaken(cid, sha, bid)


def _run_campaign(st, checker_hash, finder: str, slices: int = 14, n_jobs: int = 1, strategy="mix"):
    cid = st.create_campaign({"harness": "checker", "variant": "buggy", "strategy": strategy, "jobs": n_jobs,
                              "duration_s": float(slices), "harness_hash": checker_hash, "version": "0.1.0"})
    camp = st.campaign(cid)
    eng = _Engine(finder)
    for n in range(n_jobs):
        spec = jobs.job_spec(cid, n, camp)
        while spec is not None:
            nexts = []
            jobs.run_slice(st, spec, enqueue_intake=lambda *a: None, enqueue_next=lambda s, d: nexts.append(s),
                           engine=eng)
            _bucket_every_crash(st, cid, camp)
            spec = nexts[0] if nexts else None
    return cid, eng


@pytest.mark.parametrize("finder", ["bytes", "walk-mix"])
def test_the_mix_moves_its_slices_to_the_engine_that_finds_new_buckets(store, checker_hash, monkeypatch, finder):
    monkeypatch.setattr(portfolio, "SLICE_S", 1.0)  # mix slices are short whatever MAX_SLICE_S is
    cid, eng = _run_campaign(store, checker_hash, finder)
    ran = [s for s, _ in eng.calls]
    assert len(ran) == 14  # 14 s of job in slices of SLICE_S
    assert ran[0] == "walk-mix"  # job 0 starts on the walks (cheapest start-up)
    later = ran[len(ran) // 2:]
    assert later.count(finder) > len(later) * 0.7, ran
    w = portfolio.engine_weights(portfolio.counts(store, cid))
    assert w[finder] > 0.7, w
    c = portfolio.counts(store, cid)
    assert c["engines"][finder]["buckets"] == ran.count(finder)
    other = [e for e in portfolio.ENGINES if e != finder][0]
    assert c["engines"][other]["buckets"] == 0
    # what each slice ran is on the job, the weights in the status line
    assert store.job(cid, 0)["ran"] in portfolio.ENGINES
    assert f"{finder} {w[finder]:.2f}" in portfolio.status_line(store, cid)


def test_the_choice_is_the_same_for_the_same_campaign_state(store, checker_hash, monkeypatch):
    monkeypatch.setattr(config, "MAX_SLICE_S", 1.0)
    cid, eng = _run_campaign(store, checker_hash, "bytes", slices=6)
    spec = {"campaign": cid, "job": 0, "slice": 3}
    assert len({portfolio.choose(store, spec)[0] for _ in range(5)}) == 1


def test_each_jobs_first_slice_takes_the_engines_in_turn_and_walks_get_the_campaigns_prior(store, checker_hash,
                                                                                           monkeypatch):
    monkeypatch.setattr(config, "MAX_SLICE_S", 1.0)
    cid, eng = _run_campaign(store, checker_hash, "none", slices=2, n_jobs=2)
    # job 0: walk-mix then bytes; job 1: bytes then walk-mix (each job gives both engines a turn)
    assert [s for s, _ in eng.calls] == ["walk-mix", "bytes", "bytes", "walk-mix"], eng.calls
    priors = [p for s, p in eng.calls if s == "walk-mix" and p]
    assert priors and priors[-1]["pct:3"]["cost"] >= 500  # the arm counts of earlier walk slices


def test_a_pinned_strategy_is_run_as_given_and_leaves_no_mix_state(store, checker_hash, monkeypatch):
    monkeypatch.setattr(config, "MAX_SLICE_S", 1.0)
    cid, eng = _run_campaign(store, checker_hash, "pct:3", slices=3, strategy="pct:3")
    assert [s for s, _ in eng.calls] == ["pct:3"] * 3 and all(p is None for _, p in eng.calls)
    assert not store.r.exists(keys.campaign_mix(cid))


def test_the_cli_accepts_mix_and_pct_depths_and_refuses_others():
    from fuzzfarm.cli import _app as cli

    for ok in ("mix", "bytes", "pct", "pct:5", "random", "walk-mix"):
        cli._check_usage(1, ok)
    for bad in ("pct:x", "pct:0", "mixx"):
        with pytest.raises(cli.CLIError):
            cli._check_usage(1, bad)


# ---- the walk mix (in one process) --------------------------------------------------------------
def test_the_walk_mix_moves_its_runs_to_the_arm_that_finds_new_failures():
    m = MixStrategy(1)
    picks = []
    for _ in range(400):
        m.current = m.choose()
        picks.append(m.current)
        m.reward(1 if m.current == "pct:5" and m.stats["pct:5"]["runs"] % 10 == 0 else 0, 100)
    last = picks[200:]
    assert last.count("pct:5") > 0.7 * len(last), {a: last.count(a) for a in m.arms}
    w = m.weights()
    assert max(w, key=w.get) == "pct:5"


def test_the_walk_mix_starts_from_the_campaigns_prior_and_is_seeded():
    m = MixStrategy(2, prior={"random": {"finds": 5, "cost": 20_000}})
    assert max(m.weights(), key=m.weights().get) == "random"
    assert [MixStrategy(9).choose() for _ in range(3)] == [MixStrategy(9).choose() for _ in range(3)]
    a, b = MixStrategy(9), MixStrategy(9)
    assert [a.choose() for _ in range(20)] == [b.choose() for _ in range(20)]


def test_the_walk_mix_tries_every_arm_once_first():
    from fuzzfarm.strategies.mix import WALK_ARMS

    m = MixStrategy(3)
    first = []
    for _ in WALK_ARMS:
        m.current = m.choose()
        first.append(m.current)
        m.reward(0, 50)
    assert first == list(WALK_ARMS)


def test_the_walk_mix_runs_random_first_then_the_pct_arms():
    # random has no parameter to learn; each PCT arm's first run guesses the run length
    # (strategies/mix.py): random goes first, unless the campaign's prior has already run it.
    assert {MixStrategy(s).choose() for s in range(5)} == {"random"}
    m = MixStrategy(4, prior={"random": {"runs": 3, "finds": 0, "cost": 300}})
    assert m.choose() == "pct:3"


class _CancelledMidSlice(_Engine):
    """Fuzzes ``ran_s`` seconds, then the campaign is cancelled and its next stats tick sees it."""

    def __init__(self, st, cid, ran_s: float):
        super().__init__("none")
        self.st, self.cid, self.ran_s = st, cid, ran_s

    def run_fuzz_job(self, *, on_stats, strategy, prior=None, **_kw):
        self.calls.append((strategy, prior))
        on_stats(_Stats(execs=10, elapsed_s=self.ran_s / 2))
        self.st.request_cancel(self.cid)
        on_stats(_Stats(execs=20, elapsed_s=self.ran_s))  # raises jobs.Cancelled
        raise AssertionError("the tick after the cancel went on")


def test_a_cancelled_mix_slice_counts_what_it_ran_in_the_mix_line(store, checker_hash):
    """``fuzzfarm status`` of a cancelled mix campaign showed ``0 s`` for every engine: the
    seconds were added only at a slice's normal end."""
    cid = store.create_campaign({"harness": "checker", "variant": "buggy", "strategy": "mix", "jobs": 1,
                                 "duration_s": 20.0, "harness_hash": checker_hash, "version": "0.1.0"})
    eng = _CancelledMidSlice(store, cid, 7.0)
    assert jobs.run_slice(store, jobs.job_spec(cid, 0, store.campaign(cid)), enqueue_intake=lambda *a: None,
                          enqueue_next=lambda s, d: None, engine=eng) == "cancelled"
    [(ran, _)] = eng.calls
    c = portfolio.counts(store, cid)
    assert c["engines"][ran]["s"] == 7.0 and sum(e["s"] for e in c["engines"].values()) == 7.0, c
    assert f"{ran} " in portfolio.status_line(store, cid) and "7 s)" in portfolio.status_line(store, cid)
