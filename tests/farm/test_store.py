"""fuzzfarm.farm.store against a real redis-server."""

from __future__ import annotations

import threading

import pytest

from fuzzfarm.farm import store as S


def _campaign(st, jobs=2, **kw):
    spec = {"harness": "checker", "variant": "buggy", "strategy": "bytes", "jobs": jobs, "duration_s": 5.0,
            "harness_hash": "0123456789" * 6 + "abcd", "version": "0.1.0", **kw}
    return st.create_campaign(spec)


def test_campaign_round_trip_and_derived_status(store):
    cid = _campaign(store)
    c = store.campaign(cid)
    assert c["jobs"] == 2 and c["duration_s"] == 5.0 and c["harness"] == "checker"
    assert c["harness_hash"] == "0123456789" * 6 + "abcd"  # a digest stays text
    assert store.campaign_ids() == [cid]
    assert store.campaign_summary(cid)["status"] == "queued"
    store.update_job(cid, 0, state=S.JOB_RUNNING)
    store.job_stats(cid, 0, {"execs": 100, "exec_per_s": 50.0, "cov": 7, "ft": 9, "corpus_size": 3,
                             "crashes": 0, "elapsed_s": 2.0, "ignored": 1})
    s = store.campaign_summary(cid)
    assert s["status"] == "running" and s["execs"] == 100 and s["exec_per_s"] == 50.0 and s["cov"] == 7
    store.update_job(cid, 0, state=S.JOB_DONE)
    store.update_job(cid, 1, state=S.JOB_FAILED, error="boom")
    s = store.campaign_summary(cid)
    assert s["status"] == "done" and s["settled"] and s["errors"] == ["boom"] and s["fuzz_progress"] == 1.0
    assert store.campaign_summary("nope") is None


@pytest.mark.parametrize("states, want", [
    ([], "queued"), (["queued", "queued"], "queued"), (["running", "queued"], "running"),
    (["done", "queued"], "running"), (["done", "failed"], "done"), (["failed", "failed"], "failed")])
def test_derive_status(states, want):
    assert S.derive_status(states) == want


def test_report_crash_is_idempotent_by_input_hash(store):
    cid = _campaign(store)
    sha, new = store.report_crash(cid, 0, "checker", "buggy", b"\x01\x02", "crash", "tail")
    sha2, new2 = store.report_crash(cid, 1, "checker", "buggy", b"\x01\x02", "crash", "other")
    assert sha == sha2 == S.sha256(b"\x01\x02") and new and not new2
    c = store.crash("checker", "buggy", sha)
    assert c["data"] == b"\x01\x02" and c["job"] == "0" and c["log_tail"] == "tail"
    assert store.campaign_summary(cid)["crashes"] == 1
    assert not store.campaign_summary(cid)["settled"]


def test_create_or_join_counts_each_input_once(store):
    f = {"kind": "goroutine panic", "crash_state": ["stop", "add", "handle"]}
    bid, created, counted, count = store.create_or_join_bucket(harness="checker", variant="buggy", signature="s1",
                                                               input_sha256="a", fields=f)
    assert (created, counted, count) == (True, True, 1)
    assert store.create_or_join_bucket(harness="checker", variant="buggy", signature="s1",
                                       input_sha256="a", fields=f)[1:] == (False, False, 1)
    assert store.create_or_join_bucket(harness="checker", variant="buggy", signature="s1",
                                       input_sha256="b", fields=f) == (bid, False, True, 2)
    b = store.bucket(bid)
    assert b["state"] == S.B_NEW and b["count"] == 2 and b["crash_state"] == ["stop", "add", "handle"]
    assert b["signature"] == "s1" and store.bucket_for_signature("checker", "buggy", "s1") == bid
    assert store.bucket_inputs(bid) == {"a", "b"}
    other = store.create_or_join_bucket(harness="checker", variant="fixed", signature="s1", input_sha256="a",
                                        fields=f)[0]
    assert other != bid and store.bucket_ids() == [bid, other]


def test_racing_collectors_make_one_bucket(store, redis_server):
    """16 threads, each with its own connection, report the same 4 inputs of one new signature."""
    results, barrier = [], threading.Barrier(16)

    def collector(i):
        st = S.Store(redis_server.url)
        barrier.wait()
        for sha in ("i0", "i1", "i2", "i3"):
            results.append(st.create_or_join_bucket(harness="h", variant="v", signature="race",
                                                    input_sha256=sha, fields={"kind": "k"}))
    threads = [threading.Thread(target=collector, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(r[1] for r in results) == 1  # created once
    assert sum(r[2] for r in results) == 4  # each input counted once
    assert len({r[0] for r in results}) == 1
    assert store.bucket(results[0][0])["count"] == 4


def test_advance_bucket_is_conditional(store):
    bid = store.create_or_join_bucket(harness="h", variant="v", signature="s", input_sha256="x", fields={})[0]
    assert store.advance_bucket(bid, (S.B_NEW,), S.B_MINIMIZING)
    assert not store.advance_bucket(bid, (S.B_NEW,), S.B_MINIMIZING)
    assert store.advance_bucket(bid, (S.B_NEW, S.B_MINIMIZING), S.B_VERIFYING)
    assert store.bucket(bid)["state"] == S.B_VERIFYING
    assert not store.advance_bucket("bnothere", (S.B_NEW,), S.B_DONE)


def test_artifact_round_trip_and_corruption(store):
    bid = store.create_or_join_bucket(harness="h", variant="v", signature="s", input_sha256="x", fields={})[0]
    assert store.artifact(bid) is None
    files = {"input.min": bytes(range(256)), "trace.txt": b"G1 runs\n"}
    store.put_artifact(bid, files)
    assert store.artifact(bid) == files
    store.put_artifact(bid, {"input.min": b"\x00"})  # replaced, not merged
    assert store.artifact(bid) == {"input.min": b"\x00"}
    store.r.hset(S.P + f"artifact:{bid}", "input.min", S.b64(b"\x01"))
    with pytest.raises(S.StoreError, match="sha256 mismatch"):
        store.artifact(bid)


def test_corpus_add_and_prune_keeps_concurrent_additions(store):
    assert store.add_corpus("h", [b"a", b"b", b"c", b"a"]) == 3
    assert store.add_corpus("h", [b"a"]) == 0
    snapshot = store.corpus("h")
    store.add_corpus("h", [b"d"])  # added by another job during the merge
    assert store.prune_corpus("h", snapshot, keep=[b"a"]) == 2
    assert sorted(store.corpus("h")) == [b"a", b"d"]
    assert store.corpus_size("h") == 2 and store.corpus_size("other") == 0


def test_deliveries_and_leases(store):
    assert [store.count_delivery("t1") for _ in range(3)] == [1, 2, 3]
    assert store.count_delivery("t2") == 1
    assert 0 < store.r.ttl(S.P + "deliveries:t1") <= S.DELIVERY_TTL_S
    assert store.acquire_lease("b:minimize", "task-a", 60)
    assert store.acquire_lease("b:minimize", "task-a", 60)  # a redelivery of the same task
    assert not store.acquire_lease("b:minimize", "task-b", 60)
    store.release_lease("b:minimize", "task-b")  # not the owner: no effect
    assert not store.acquire_lease("b:minimize", "task-b", 60)
    store.release_lease("b:minimize", "task-a")
    assert store.acquire_lease("b:minimize", "task-b", 60)


def test_field_encoding_round_trip(store):
    cid = _campaign(store)
    values = {"a_list": [1, "x"], "flag": True, "nothing": None, "ratio": 0.5, "count": 3, "text": "hello",
              "error": "12", "signature": "1234e5678", "minus": "-"}
    store.update_job(cid, 0, **values)
    job = store.job(cid, 0)
    for k, v in values.items():
        assert job[k] == v, k


def test_ping_errors_are_masked_and_fast(redis_server):
    import time

    from fuzzfarm.farm.embedded import free_port
    url = f"redis://:hunter2pw@127.0.0.1:{free_port()}/0"
    t0 = time.monotonic()
    with pytest.raises(S.StoreError) as e:
        S.Store(url).ping()
    assert time.monotonic() - t0 < 5
    assert "hunter2pw" not in str(e.value) and "***" in str(e.value) and "start redis-server" in str(e.value)


def test_wrong_password_is_reported_without_the_password(redis_server, tmp_path):
    from fuzzfarm.farm.embedded import RedisServer
    with RedisServer(str(tmp_path), password="right-pw-123") as srv:
        S.Store(srv.url).ping()
        bad = srv.url.replace("right-pw-123", "wrong-pw-456")
        with pytest.raises(S.StoreError) as e:
            S.Store(bad).ping()
        assert "wrong-pw-456" not in str(e.value) and "right-pw-123" not in str(e.value)


def test_the_reads_the_web_view_needs(store):
    """Store.buckets / campaign_bucket_times: what web/data.py read by hand; a bucket's last_seen
    moves with every new input, whichever campaign reports it (it stayed at the first hit)."""
    cid = store.create_campaign({"harness": "h", "variant": "v", "jobs": 0, "duration_s": 1.0})
    bid, _, _, _ = store.create_or_join_bucket(harness="h", variant="v", signature="s", input_sha256="a" * 64,
                                               fields={"kind": "k", "first_campaign": cid, "count_x": 3})
    store.mark_intaken(cid, "a" * 64, bid)
    [(got, t)] = store.campaign_bucket_times(cid)
    assert got == bid and t > 0
    recs = store.buckets([bid, "b-unknown"])
    assert [b["id"] for b in recs] == [bid] and recs[0]["count_x"] == 3  # decoded, unknown left out
    assert store.buckets([]) == []
    first = float(recs[0]["last_seen"])
    other = store.create_campaign({"harness": "h", "variant": "v", "jobs": 0, "duration_s": 1.0})
    store.create_or_join_bucket(harness="h", variant="v", signature="s", input_sha256="c" * 64, fields={})
    store.mark_intaken(other, "c" * 64, bid)
    assert float(store.bucket(bid)["last_seen"]) > first
    second = float(store.bucket(bid)["last_seen"])
    assert store.join_unreplayed(bid, "d" * 64) == (True, 3)  # a join on the engine's word moves it too
    assert float(store.bucket(bid)["last_seen"]) > second
