"""fuzzfarm gc / delete against a real redis-server: a finished campaign's own keys go; its
buckets, artifacts and groups stay; a crash that is in no bucket is never lost; a campaign that
is still running or triaging is never touched."""

from __future__ import annotations

import json
import time

import pytest

from farm_fixtures import CLI
from fuzzfarm.farm.store import retention
from fuzzfarm.farm import store as S


def _finished_campaign(st, *, untriaged: bool = False, unbucketed: bool = False, jobs: int = 2) -> tuple[str, str]:
    """A campaign as the farm leaves it: jobs done, stats and a series point, two crash inputs
    of one bucket (done, with an artifact); optionally one crash still waiting for intake, or
    one whose intake found no bucket."""
    spec = {"harness": "checker", "variant": "buggy", "strategy": "bytes", "jobs": jobs, "duration_s": 5.0,
            "harness_hash": "ab" * 32, "version": "0.1.0"}
    cid = st.create_campaign(spec)
    for n in range(jobs):
        st.update_job(cid, n, state=S.JOB_RUNNING)
        st.job_stats(cid, n, {"execs": 10, "exec_per_s": 5.0, "cov": 3, "ft": 4, "corpus_size": 1, "crashes": 1,
                              "elapsed_s": 2.0})
        st.update_job(cid, n, state=S.JOB_DONE)
    bid = None
    for i, data in enumerate((b"first-" + cid.encode(), b"second-" + cid.encode())):
        sha, _ = st.report_crash(cid, i % jobs, "checker", "buggy", data)
        bid, _, _, _ = st.create_or_join_bucket(harness="checker", variant="buggy", signature="sig-" + cid,
                                               input_sha256=sha, fields={"kind": "goroutine panic", "state": S.B_NEW})
        st.set_crash("checker", "buggy", sha, bucket=bid, signature="sig-" + cid)
        st.mark_intaken(cid, sha, bid)
    st.put_artifact(bid, {"minimized.input": b"m", "original.input": b"o"})
    st.update_bucket(bid, state=S.B_DONE)
    if unbucketed:  # intake ran and filed it nowhere (not reproducible): the only copy of that input
        sha, _ = st.report_crash(cid, 0, "checker", "buggy", b"lonely-" + cid.encode())
        st.set_crash("checker", "buggy", sha, bucket="", status="unreproducible")
        st.mark_intaken(cid, sha, None)
    if untriaged:
        st.report_crash(cid, 0, "checker", "buggy", b"waiting-" + cid.encode())
    return cid, bid


def _keys(st) -> set[str]:
    return set(st.r.scan_iter(S.P + "*"))


def test_delete_removes_the_campaign_and_keeps_its_bucket_artifact_and_groups(store):
    before = _keys(store)
    cid, bid = _finished_campaign(store, unbucketed=True)
    store.set_group([bid], "g1", "my group")
    added = _keys(store) - before
    rm = retention.remove_campaign(store, cid, dry_run=True)
    assert _keys(store) - before == added  # a dry run removes nothing
    assert rm.crash_inputs == 2 and rm.kept_untriaged == 1
    retention.remove_campaign(store, cid)
    left = _keys(store) - before
    assert store.campaign(cid) is None and cid not in store.campaign_ids()
    assert not [k for k in left if f":{cid}" in k and not k.startswith(S.P + "crash:")], left
    # kept: the bucket, its inputs, its signature, its artifact, the groups; the one crash in no bucket
    b = store.bucket(bid)
    assert b is not None and b["state"] == S.B_DONE and len(store.bucket_inputs(bid)) == 2
    assert store.artifact(bid)["minimized.input"] == b"m"
    assert store.bucket_for_signature("checker", "buggy", "sig-" + cid) == bid
    assert store.group_overrides() == {bid: "g1"}
    crashes = [k for k in left if k.startswith(S.P + "crash:")]
    assert len(crashes) == 1 and store.r.hget(crashes[0], "status") == "unreproducible"
    # what stays per campaign is bounded by its buckets, not by its jobs or crashes
    # what stays is bounded by the buckets, not by the jobs or crashes: bucket, its inputs, its
    # signature, the buckets index, the artifact, the two group keys, the one crash in no bucket
    assert len(left) == 8, sorted(left)

def test_unsettled_campaigns_are_never_removed(store):
    cid, _ = _finished_campaign(store, untriaged=True)
    with pytest.raises(retention.NotRemovable, match="not settled"):
        retention.remove_campaign(store, cid)
    running = store.create_campaign({"harness": "checker", "variant": "buggy", "strategy": "bytes", "jobs": 1,
                                     "duration_s": 5.0, "harness_hash": "ab" * 32, "version": "0.1.0"})
    store.update_job(running, 0, state=S.JOB_RUNNING)
    assert retention.collect(store, older_than_s=0, now=time.time() + 1) == []
    assert store.campaign(cid) and store.campaign(running)
    with pytest.raises(retention.NotRemovable, match="unknown campaign"):
        retention.remove_campaign(store, "nope")


def test_gc_takes_only_old_settled_campaigns(store):
    old, _ = _finished_campaign(store)
    store.r.zadd(S.P + "campaigns", {old: time.time() - 40 * 86400})
    new, _ = _finished_campaign(store)
    removed = retention.collect(store, older_than_s=30 * 86400)
    assert [r.campaign for r in removed] == [old]
    assert store.campaign(old) is None and store.campaign(new) is not None


def test_cli_gc_and_delete(store, redis_server, tmp_path):
    cli = CLI(redis_server.url, str(tmp_path))
    cid, bid = _finished_campaign(store)
    r = cli("gc", "--older-than", "0", "--dry-run", "--json")
    assert r.returncode == 0, r.stderr
    assert [c["campaign"] for c in json.loads(r.stdout)["campaigns"]] == [cid]
    assert store.campaign(cid) is not None
    r = cli("delete", cid)
    assert r.returncode == 0 and f"removed campaign {cid}" in r.stdout, r.stdout + r.stderr
    assert store.campaign(cid) is None and store.bucket(bid) is not None
    for args in (("delete", cid), ("gc", "--older-than", "soon")):
        r = cli(*args)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)
        assert r.stderr.startswith("fuzzfarm: error: ")


def test_a_settled_campaign_gets_a_ttl_on_its_own_keys_and_gc_drops_it_once_expired(store):
    cid, bid = _finished_campaign(store, unbucketed=True)
    running = store.create_campaign({"harness": "checker", "variant": "buggy", "strategy": "bytes", "jobs": 1,
                                     "duration_s": 5.0, "harness_hash": "ab" * 32, "version": "0.1.0"})
    store.update_job(running, 0, state=S.JOB_RUNNING)
    own = retention.campaign_keys(store, cid).keys
    assert retention.expire_settled(store, ttl_s=3600, force=True) == [cid]
    assert all(0 < store.r.ttl(k) <= 3600 for k in own), [(k, store.r.ttl(k)) for k in own]
    # kept until deleted: the bucket, its artifact, the crash filed in no bucket; the running campaign
    assert store.r.ttl(S.P + f"bucket:{bid}") == -1 and store.r.ttl(S.P + f"artifact:{bid}") == -1
    assert all(store.r.ttl(k) == -1 for k in store.r.scan_iter(S.P + "crash:*") if not store.r.hget(k, "bucket"))
    assert all(store.r.ttl(k) == -1 for k in retention.campaign_keys(store, running).keys)
    assert retention.expire_settled(store, ttl_s=3600, force=True) == []  # once
    # its keys expire: `gc` then drops the index entry too
    for k in own:
        store.r.delete(k)
    retention.collect(store, older_than_s=0, now=time.time() + 1)
    assert cid not in store.campaign_ids() and running in store.campaign_ids()


def test_delete_takes_every_key_the_key_list_files_under_the_campaign(store):
    """gc works from keys.LIFETIME: each per-campaign key the farm writes (skew, mix portfolio,
    context rechecks, series, ...) exists before the delete and is gone after it."""
    from fuzzfarm.farm.store import keys

    cid, bid = _finished_campaign(store)
    store.skew_seen(cid, "w1", "ab" * 32)
    store.mix_add(cid, {"walk.s": 1.0}, {})
    store.start_recheck(bid, "none|x", cid, bid + "-none-x", time.time())
    written = [keys.campaign_skew(cid), keys.campaign_mix(cid), keys.campaign_rechecks(cid), keys.campaign_series(cid)]
    assert all(store.r.exists(k) for k in written)
    retention.remove_campaign(store, cid)
    assert not [k for k in _keys(store) if f":{cid}" in k and not k.startswith(keys.P + "crash:")]
    assert store.r.exists(keys.recheck(bid, "none|x"))  # the bucket's, kept with it
