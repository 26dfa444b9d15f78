"""A worker process SIGKILLed mid-job, 5 times in one campaign: each killed slice runs again, every
crash reported before a kill is kept and triaged, nothing is counted twice, no fuzzer outlives
the process that ran it. ``scripts/drill_kill_worker`` runs the same drill 20+ times."""

from __future__ import annotations

import faultlib
import killdrill


def test_sigkill_pool_process_mid_job_5_times(fault_farm, fst):
    res = killdrill.run(fst, kills=5, jobs=2, duration=12.0, log=lambda m: None)
    print("kill drill:", res.figures(), res.notes)
    assert res.kills_tried == 5, res.notes
    assert res.jobs_failed == 0 and res.jobs_done == 2, (res.figures(), res.notes)
    assert res.kills_survived == res.kills_tried
    assert res.crashes_before_kills > 0, "no crash was reported before a kill: the drill proved nothing"
    assert res.crashes_lost == 0, (res.figures(), res.notes)
    assert res.duplicates == 0, res.figures()
    assert res.fuzzers_outliving == 0
    assert res.buckets == 1  # one bug, however many inputs and kills
    assert all(w.alive() for w in fault_farm.workers)
    faultlib.assert_no_fuzzers_left()
