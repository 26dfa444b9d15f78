"""A fuzz slice no longer merges the shared corpus itself: when the corpus has grown by
``CORPUS_MERGE_GROWTH`` it enqueues one ``fuzzfarm.merge_corpus`` task for the collector's queue
(farm/jobs.py ``want_merge``), once per harness while one is queued; the task merges with the
collector's copy of the harness, only when it is the campaign's version, and the "one merge at a
time" lease still holds (test_merge_once.py). Real Redis; the engine is a stand-in."""

from __future__ import annotations

import types

import pytest

from fuzzfarm import harness as H
from fuzzfarm.farm import jobs


class Engine:
    """Fuzzes nothing new but two inputs; counts merges (keeps the first input only)."""

    def __init__(self):
        self.merges = 0

    def run_fuzz_job(self, *, harness, variant, strategy, seed, duration_s, corpus, workdir, on_crash, on_stats,
                     timeout_s, rss_limit_mb, stats_interval_s=1.0):
        stats = {"execs": 10, "elapsed_s": duration_s}
        return types.SimpleNamespace(stats=stats, new_corpus=[b"new-%d" % seed, b"other-%d" % seed], crashes=0,
                                     restarts=0, error=None, stopped=False)

    def merge_corpus(self, harness, variant, snapshot, workdir, budget_s=None):
        self.merges += 1
        return sorted(snapshot)[:1]


@pytest.fixture
def checker_hash():
    try:
        return H.get("checker").source_hash()
    except H.HarnessError as e:
        pytest.skip(str(e))


def _campaign(st, h, n_jobs=2):
    return st.create_campaign({"harness": "checker", "variant": "fixed", "strategy": "bytes", "jobs": n_jobs,
                               "duration_s": 2.0, "harness_hash": h, "version": "0.1.0"})


def test_slices_enqueue_one_merge_and_the_task_merges(store, checker_hash, tmp_path):
    store.add_corpus("checker", [b"seed-%d" % i for i in range(jobs.CORPUS_MERGE_GROWTH)])
    cid, eng, merges = _campaign(store, checker_hash), Engine(), []
    for n in (0, 1):  # two jobs end together: one merge is queued, not two, and neither slice merges
        spec = jobs.job_spec(cid, n, store.campaign(cid))
        assert jobs.run_slice(store, spec, enqueue_intake=lambda *a: None, enqueue_next=lambda *a: None,
                              engine=eng, enqueue_merge=lambda *a: merges.append(a)) == "done"
    assert merges == [("checker", "fixed", checker_hash)] and eng.merges == 0
    assert store.corpus_size("checker") == jobs.CORPUS_MERGE_GROWTH + 4  # the uploads are the slice's
    assert jobs.merge_task(store, eng, *merges[0], str(tmp_path)) == "merged"
    assert eng.merges == 1 and store.corpus_size("checker") == 1 and store.corpus_merged_size("checker") == 1
    # the task dropped the queued mark: the next growth queues the next merge
    store.add_corpus("checker", [b"more-%d" % i for i in range(jobs.CORPUS_MERGE_GROWTH)])
    assert jobs.want_merge(store, "checker", "fixed", checker_hash, lambda *a: merges.append(a))
    assert len(merges) == 2
    # a second delivery of a merge already done finds nothing due and merges nothing
    assert jobs.merge_task(store, eng, *merges[1], str(tmp_path)) == "merged"
    assert jobs.merge_task(store, eng, *merges[1], str(tmp_path)) == "not due" and eng.merges == 2


def test_below_the_growth_nothing_is_queued_and_the_cap_still_holds(store, checker_hash, monkeypatch):
    from fuzzfarm.farm import corpus_bound
    monkeypatch.setattr(corpus_bound, "CORPUS_MAX", 3)
    store.add_corpus("checker", [b"a", b"bb", b"ccc", b"dddd", b"eeeee"])
    store.set_corpus_merged_size("checker", 5)
    merges = []
    assert not jobs.want_merge(store, "checker", "fixed", checker_hash, lambda *a: merges.append(a))
    assert merges == [] and sorted(store.corpus("checker")) == [b"a", b"bb", b"ccc"]


def test_a_collector_with_another_harness_version_does_not_merge(store, checker_hash, tmp_path):
    store.add_corpus("checker", [b"seed-%d" % i for i in range(jobs.CORPUS_MERGE_GROWTH)])
    eng = Engine()
    assert jobs.want_merge(store, "checker", "fixed", "0" * 64, lambda *a: None)
    assert jobs.merge_task(store, eng, "checker", "fixed", "0" * 64, str(tmp_path)) == "skipped"
    assert eng.merges == 0 and store.corpus_size("checker") == jobs.CORPUS_MERGE_GROWTH
    assert jobs.merge_task(store, eng, "no-such-harness", "fixed", checker_hash, str(tmp_path)) == "skipped"
    # skipped, the queued mark is gone all the same: a later slice (or collector) tries again
    assert jobs.want_merge(store, "checker", "fixed", checker_hash, lambda *a: None)


def test_a_failed_enqueue_leaves_no_mark(store, checker_hash):
    store.add_corpus("checker", [b"seed-%d" % i for i in range(jobs.CORPUS_MERGE_GROWTH)])

    def broken(*a):
        raise ConnectionError("broker gone")

    with pytest.raises(ConnectionError):
        jobs.want_merge(store, "checker", "fixed", checker_hash, broken)
    assert jobs.want_merge(store, "checker", "fixed", checker_hash, lambda *a: None)
