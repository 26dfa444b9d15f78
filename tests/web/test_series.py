"""The campaign time series behind the web view's charts (a real redis-server): bounded,
throttled per job, expiring, and summed over jobs with each job's last figure carried forward."""

from __future__ import annotations

from fuzzfarm.farm.store import P
from fuzzfarm.web import data, plots


def _campaign(store, jobs=2, duration_s=10):
    return store.create_campaign({"harness": "h", "variant": "buggy", "jobs": jobs, "duration_s": duration_s,
                                  "strategy": "bytes"})


def test_points_are_throttled_per_job_bounded_and_expire(store):
    cid = _campaign(store, jobs=2, duration_s=10)
    t0 = float(store.campaign(cid)["created"])
    assert store.record_series(cid, 0, {"execs": 1}, now=t0 + 1)
    assert not store.record_series(cid, 0, {"execs": 2}, now=t0 + 1.5)  # < 1 s after job 0's last point
    assert store.record_series(cid, 1, {"execs": 5}, now=t0 + 1.5)  # job 1 has its own clock
    assert store.record_series(cid, 0, {"execs": 3}, now=t0 + 2.1)
    assert [(p["job"], p["execs"]) for p in store.series(cid)] == [(0, 1), (1, 5), (0, 3)]
    assert 0 < store.r.ttl(P + f"campaign:{cid}:series") <= store.SERIES_TTL_S
    store.SERIES_CAP = 30  # this Store only: the bound, tested without 2,000 round trips
    for k in range(store.SERIES_CAP + 50):
        store.record_series(cid, 0, {"execs": k}, now=t0 + 10 + k)
    pts = store.series(cid)
    assert len(pts) == store.SERIES_CAP and pts[-1]["execs"] == store.SERIES_CAP + 49


def test_a_long_campaign_spaces_its_points_to_fit(store):
    cid = _campaign(store, jobs=4, duration_s=3600)  # 4 jobs x 1 h: one point per job every 7.2 s
    t0 = float(store.campaign(cid)["created"])
    added = sum(store.record_series(cid, 0, {"execs": k}, now=t0 + k) for k in range(100))
    assert added == 13  # t = 0, 8, 16, ..., 96: the first whole second 7.2 s after the last point


def test_execs_sum_over_jobs_and_earlier_slices(store):
    cid = _campaign(store, jobs=2)
    t0 = float(store.campaign(cid)["created"])
    store.update_job(cid, 1, execs_base=100, state="running")  # job 1 is in its second slice
    store.record_series(cid, 0, {"execs": 10, "cov": 7}, now=t0 + 1)
    store.record_series(cid, 1, {"execs": 5, "cov": 9}, now=t0 + 2)
    store.record_series(cid, 0, {"execs": 20, "cov": 8}, now=t0 + 3)
    s = data.series(store, cid)
    assert [v for _, v in s["execs"][:3]] == [10, 10 + 105, 20 + 105]
    assert [v for _, v in s["cov"][:3]] == [7, 9, 9]
    svg = plots.line_chart(s["execs"], title="execs", css="execs")
    assert "<polyline" in svg and "last 125" in svg
