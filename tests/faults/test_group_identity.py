"""Group identity that means the same object (issue 29, item 7). ``ff-twomaps``: scenario 0 races
an unnamed map made in ``newOrders`` (a go_func port function) with writers ``write_orders_*``,
scenario 1 another unnamed map made in ``make_users`` with writers ``write_users_*``. Both maps
are their run's first object, ``map#1``: grouped by that label they were one bug. The runtime's
creation site tells them apart: two buckets, two groups. Real fresh-process replays at intake,
a real redis-server."""

from __future__ import annotations

import pytest

import faultlib


@pytest.fixture
def site(monkeypatch):
    monkeypatch.syspath_prepend(faultlib.SITE)
    monkeypatch.setenv("PYTHONPATH", faultlib.SITE)
    import faultharnesses.twomaps as mod
    return mod


def _repro(mod, scenario: int) -> bytes:
    from fuzzfarm.engine.explore import explore
    r = explore(mod, "buggy", bytes([scenario]), bound=1, reduce=False)
    assert r.failure and r.failure["kind"] == "concurrent map writes", r.verdict()
    return r.reproducer


def test_two_maps_raced_by_different_writers_are_two_groups(store, site):
    from fuzzfarm.views import bucket_rows
    from fuzzfarm.collector.grouping import group_buckets
    from fuzzfarm.farm import triage
    cid = store.create_campaign({"harness": "ff-twomaps", "variant": "buggy", "strategy": "bytes", "jobs": 1,
                                 "duration_s": 1.0, "harness_hash": "h" * 64, "version": "0"})
    bids = []
    for sc in (0, 1):
        sha, _ = store.report_crash(cid, 0, "ff-twomaps", "buggy", _repro(site, sc))
        bids.append(triage.intake(store, cid, "ff-twomaps", "buggy", sha, enqueue_triage=lambda _b: None))
    a, b = (store.bucket(x) for x in bids)
    assert a["object"] == b["object"] == "map#1"  # the per-run label: the same text for two maps
    assert a["object_site"] == "newOrders (orders.go:12)", a["object_site"]  # the Go creation site
    assert b["object_site"].startswith("make_users (twomaps.py:"), b["object_site"]  # the Python one
    groups = group_buckets(bucket_rows(store, cid))
    assert len(groups) == 2, [g["name"] for g in groups]
    orders = next(g["name"] for g in groups if "newOrders" in g["name"])
    users = next(g["name"] for g in groups if "make_users" in g["name"])
    assert "newOrders (orders.go:12)" in orders and "write_orders" in orders and "users" not in orders, orders
    assert "write_users" in users and "orders" not in users, users
