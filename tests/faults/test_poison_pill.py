"""Poison pill (docs/TRAPS.md#g15, celery #9082): a job whose process dies every time it runs is retried a
bounded number of times, then recorded as failed with its cause; the worker and other jobs go on."""

from __future__ import annotations

import time

import faultlib
from fuzzfarm.farm import config


def _delivery_counts(st) -> dict[str, int]:
    return {k: int(st.r.get(k) or 0) for k in st.r.scan_iter("fuzzfarm:deliveries:*")}


def test_poison_pill_fuzz_job_bounded_then_failed(fault_farm, fst):
    fuzz_worker = fault_farm.workers[0]
    poison = faultlib.submit(fst, "ff-poison", duration=30)
    other = faultlib.submit(fst, "ff-crashy", "fixed", duration=3)
    t0 = time.monotonic()
    faultlib.wait_until(lambda: faultlib.job_states(fst, poison) == ["failed"], 120, "the poison job to be failed")
    took = time.monotonic() - t0
    job = fst.job(poison, 0)
    err = job["error"]
    assert f"gave up after {config.MAX_DELIVERIES} deliveries" in err and "died" in err, err
    # bounded: exactly MAX_DELIVERIES runs that died + the delivery that recorded the failure
    counts = _delivery_counts(fst)
    assert config.MAX_DELIVERIES + 1 in counts.values(), counts
    # ... and never delivered again
    time.sleep(3)
    assert _delivery_counts(fst) == counts
    assert fst.r.llen("fuzz") == 0
    log = fuzz_worker.log_text()
    assert log.count("signal 9 (SIGKILL)") >= config.MAX_DELIVERIES, log[-3000:]
    # the worker survived and other work went on
    assert fuzz_worker.alive()
    faultlib.wait_until(lambda: faultlib.job_states(fst, other) == ["done"], 60, "the other campaign to finish")
    after = faultlib.submit(fst, "ff-crashy", "fixed", duration=2)
    faultlib.wait_until(lambda: faultlib.job_states(fst, after) == ["done"], 60, "a job submitted afterwards")
    print(f"poison pill: failed after {took:.1f} s: {err}")
