"""The shared corpus cannot grow until its merge meets the slice's time limit
(``fuzzfarm/farm/corpus_bound.py``): a merge that removes nothing (the worst case: every input
adds coverage, or the merge failed) still leaves at most FUZZFARM_CORPUS_MAX inputs, the smallest
ones, and the merge is given at most half the slice's soft margin. Real Redis (the fault farm's)
and the farm's own merge step; the merge itself is replaced by one that keeps everything."""

from __future__ import annotations

import hashlib

from fuzzfarm.farm import store as S
from fuzzfarm.farm import config, corpus_bound, jobs


class KeepEverything:
    """An engine whose -merge=1 shrinks nothing; records the budget it was given."""

    def __init__(self, fails: bool = False):
        self.budgets, self.fails = [], fails

    def merge_corpus(self, harness, variant, inputs, workdir, *, budget_s=600.0):
        self.budgets.append(budget_s)
        if self.fails:
            raise RuntimeError("merge over its budget")
        return list(inputs)


def _grow(st, harness: str, n: int, start: int = 0) -> list[bytes]:
    inputs = [bytes([65 + i % 26]) * (1 + (i * 7919) % 500) + str(i).encode() for i in range(start, start + n)]
    st.add_corpus(harness, inputs)
    return inputs


def test_a_corpus_whose_merge_keeps_everything_stays_at_its_cap(fst, monkeypatch, tmp_path):
    monkeypatch.setattr(corpus_bound, "CORPUS_MAX", 100)
    eng = KeepEverything()
    inputs = []
    for round_ in range(4):  # four slices, each uploading 90 new inputs
        inputs += _grow(fst, "ff-crashy", 90, start=round_ * 90)
        jobs._maybe_merge(fst, eng, "ff-crashy", "buggy", str(tmp_path / f"m{round_}"))
        assert fst.corpus_size("ff-crashy") <= 100
    assert eng.budgets and all(b <= config.FUZZ_SOFT_MARGIN_S / 2 for b in eng.budgets)
    # the smallest inputs are the ones kept (ties by sha1), the same choice on every worker
    want = sorted(inputs, key=lambda d: (len(S.b64(d)), hashlib.sha1(d).hexdigest()))[:100]
    assert sorted(fst.corpus("ff-crashy")) == sorted(want)


def test_a_failed_merge_still_leaves_the_corpus_at_its_cap(fst, monkeypatch, tmp_path):
    monkeypatch.setattr(corpus_bound, "CORPUS_MAX", 50)
    _grow(fst, "ff-crashy", 200)
    jobs._maybe_merge(fst, KeepEverything(fails=True), "ff-crashy", "buggy", str(tmp_path))
    assert fst.corpus_size("ff-crashy") == 50
    # below the merge threshold, an over-cap corpus is trimmed too (a lowered cap)
    monkeypatch.setattr(corpus_bound, "CORPUS_MAX", 20)
    jobs._maybe_merge(fst, KeepEverything(), "ff-crashy", "buggy", str(tmp_path))
    assert fst.corpus_size("ff-crashy") == 20
