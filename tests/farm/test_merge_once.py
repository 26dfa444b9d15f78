"""Jobs of a campaign end together; only one of them merges the harness's corpus at a time
(farm/jobs.py ``_maybe_merge``): the others skip the merge, which would give the same result."""

from fuzzfarm.farm import jobs


class Engine:
    def __init__(self):
        self.merges = 0

    def merge_corpus(self, harness, variant, snapshot, workdir, budget_s=None):
        self.merges += 1
        return list(snapshot)[:1]


def test_a_merge_under_way_elsewhere_is_not_repeated(store, tmp_path):
    store.add_corpus("h", [bytes([i]) for i in range(jobs.CORPUS_MERGE_GROWTH)])
    eng = Engine()
    assert store.acquire_lease("merge:h", "another-box:1", 60)  # a job elsewhere is merging
    jobs._maybe_merge(store, eng, "h", "fixed", str(tmp_path / "a"))
    assert eng.merges == 0 and store.corpus_size("h") == jobs.CORPUS_MERGE_GROWTH
    store.release_lease("merge:h", "another-box:1")
    jobs._maybe_merge(store, eng, "h", "fixed", str(tmp_path / "b"))
    assert eng.merges == 1 and store.corpus_size("h") == 1 and store.corpus_merged_size("h") == 1
    assert store.acquire_lease("merge:h", "next", 60)  # released after the merge
