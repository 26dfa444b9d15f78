"""The corpus merge runs on the collector, not on the fuzz worker (farm/jobs.py ``want_merge``,
farm/tasks.py ``merge_corpus``): a real campaign whose slice ends with the shared corpus grown by
``CORPUS_MERGE_GROWTH`` queues one ``fuzzfarm.merge_corpus`` message; the collect worker runs the
real libFuzzer ``-merge=1`` on it (the duplicate-coverage junk seeded here goes) and records the
merged size; the fuzz worker's log has no merge in it."""

from __future__ import annotations

import re

import faultlib
from fuzzfarm.farm import jobs
from fuzzfarm.farm.store import keys


def test_a_grown_corpus_is_merged_by_the_collector(fault_farm, fst):
    junk = [b"\x00" * 64 + bytes([i]) for i in range(jobs.CORPUS_MERGE_GROWTH + 6)]  # same coverage, mostly
    fst.add_corpus("cluster-builder", junk)
    fuzz_w = next(w for w in fault_farm.workers if w.queues == ["fuzz"])
    coll_w = next(w for w in fault_farm.workers if w.queues == ["collect"])
    before_fuzz, before_coll = len(fuzz_w.log_text()), len(coll_w.log_text())
    cid = faultlib.submit(fst, "cluster-builder", "fixed", duration=2.0)
    faultlib.wait_until(lambda: faultlib.campaign_final(fst, cid) and fst.corpus_merged_size("cluster-builder") > 0,
                        120, "the campaign to end and its corpus to be merged")
    merged = fst.corpus_merged_size("cluster-builder")
    assert merged == fst.corpus_size("cluster-builder")
    # The merge's own line: it pruned the corpus it was given (the campaign's finds included, so
    # the merged size can exceed the junk's count), and the junk of one coverage went with it.
    said = re.search(r"corpus cluster-builder: merged (\d+) -> (\d+)", coll_w.log_text()[before_coll:])
    assert said and int(said[2]) < int(said[1]), said
    left = set(fst.corpus("cluster-builder")) & set(junk)
    assert len(left) < len(junk) // 2, (len(left), len(junk))
    assert "corpus cluster-builder: merged" not in fuzz_w.log_text()[before_fuzz:]
    faultlib.wait_until(lambda: faultlib.drained(fst), 30, "the queues to drain")
    assert not fst.r.exists(keys.corpus_merge_queued("cluster-builder"))  # the next growth may queue the next one
