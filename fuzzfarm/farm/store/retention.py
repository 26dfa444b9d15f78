"""What a finished campaign leaves in Redis, and how it goes: ``fuzzfarm gc`` and ``fuzzfarm delete``.

Redis is the farm's only database and it lives in memory, so what is kept must be bounded. The
split (docs/RELIABILITY.md, "Redis growth"):

* **kept until deleted**: buckets (``bucket:*``, ``bucket:*:inputs``, ``sig:*``, ``buckets``),
  their artifacts (``artifact:*``: minimized and original input, trace, failure, sha256s), the
  user's groups (``groups:*``) and each harness's shared corpus (``corpus:*``). That is what a
  user downloads, replays and triages, and what later campaigns build on.
* **belongs to one campaign** and goes with it: the campaign record, its jobs (state and live
  stats), its crash / intake / bucket sets, its time series, and the crash inputs it reported
  whose intake has finished (each one is then counted in its bucket, and the bucket's artifact
  holds its reproducer). A crash input whose intake never finished is kept whatever happens:
  nothing here loses a crash.

Only *settled* campaigns (every job final and every crash triaged) are collected: a campaign
still fuzzing or triaging is never touched.

Besides ``gc`` / ``delete``, a campaign's own keys get a TTL once it has settled
(``FUZZFARM_CAMPAIGN_TTL_S``, 30 days by default; 0 keeps them until ``gc``): its job stats,
series, crash and intake sets, version-skew record and triaged crash inputs (the staging copies
of inputs now counted in a bucket) all expire together, with the campaign record. One worker's
janitor (:mod:`fuzzfarm.farm.janitor`) applies them about once a minute for the whole fleet
(:func:`expire_settled`); ``gc`` drops index entries of campaigns that expired.
"""

from __future__ import annotations

import dataclasses
import os
import time

from fuzzfarm import settings
from fuzzfarm.farm import store as S
from fuzzfarm.farm.store import keys

CAMPAIGN_TTL_S = settings.number("FUZZFARM_CAMPAIGN_TTL_S", 30.0 * 24 * 3600, above=True)
EXPIRY_SWEEP_S = 60.0  # one expire_settled round per this many seconds, fleet-wide


@dataclasses.dataclass
class Removal:
    """What removing one campaign deletes (or, in a dry run, would delete)."""

    campaign: str
    keys: list[str]
    crash_inputs: int       # crash records among ``keys`` (filed into a bucket)
    kept_untriaged: int     # crash records kept: in no bucket

    def as_dict(self) -> dict:
        return {"campaign": self.campaign, "keys": len(self.keys), "crash_inputs": self.crash_inputs,
                "kept_untriaged": self.kept_untriaged}


class NotRemovable(ValueError):
    """The campaign cannot be removed (unknown, or still running / triaging); ``str`` says why."""


def campaign_keys(st: S.Store, cid: str) -> Removal:
    """The keys that belong to campaign ``cid`` alone."""
    camp = st.campaign(cid)
    if camp is None:
        raise NotRemovable(f"unknown campaign {cid!r}; list campaigns with `fuzzfarm status`")
    own = keys.campaign_own(cid, int(camp.get("jobs", 0) or 0))  # the list: keys.LIFETIME["campaign"]
    crashes = sorted(st.r.smembers(keys.campaign_crashes(cid)))
    ckeys = [keys.crash(camp["harness"], camp["variant"], sha) for sha in crashes]
    pipe = st.r.pipeline()
    for k in ckeys:
        pipe.hmget(k, "campaign", "bucket")
    recs = pipe.execute() if ckeys else []
    # a crash record goes only if this campaign reported it first and it was filed into a bucket
    mine = [k for k, (owner, bucket) in zip(ckeys, recs) if owner == cid and bucket]
    kept = sum(1 for owner, bucket in recs if owner == cid and not bucket)
    present = [k for k, n in zip(own, _exists(st, own)) if n]
    return Removal(cid, present + mine, len(mine), kept)


def _exists(st: S.Store, keys: list[str]) -> list[int]:
    pipe = st.r.pipeline()
    for k in keys:
        pipe.exists(k)
    return pipe.execute()


def remove_campaign(st: S.Store, cid: str, *, dry_run: bool = False) -> Removal:
    """Delete campaign ``cid``'s own keys (see the module doc); its buckets and artifacts stay.
    Raises NotRemovable for an unknown campaign or one that is not settled."""
    summary = st.campaign_summary(cid)
    if summary is None:
        raise NotRemovable(f"unknown campaign {cid!r}; list campaigns with `fuzzfarm status`")
    if not summary["settled"]:
        raise NotRemovable(f"campaign {cid} is {summary['status']} and not settled (jobs running or crashes "
                           f"still in triage); cancel it (`fuzzfarm cancel {cid}`) or wait, then delete it")
    rm = campaign_keys(st, cid)
    if not dry_run:
        pipe = st.r.pipeline()  # MULTI/EXEC: the campaign is there whole or gone whole
        pipe.zrem(keys.campaigns(), cid)
        for k in rm.keys:
            pipe.delete(k)
        pipe.execute()
    return rm


def collect(st: S.Store, *, older_than_s: float, dry_run: bool = False, now: float | None = None) -> list[Removal]:
    """Remove every settled campaign submitted more than ``older_than_s`` seconds ago (and the
    index entries of campaigns whose keys expired)."""
    now = time.time() if now is None else now
    old = st.r.zrangebyscore(keys.campaigns(), "-inf", now - older_than_s)
    gone = [cid for cid, n in zip(old, _exists(st, [keys.campaign(c) for c in old])) if not n]
    if gone and not dry_run:
        st.r.zrem(keys.campaigns(), *gone)
    out = []
    for cid in old:
        if cid in gone:
            continue
        try:
            out.append(remove_campaign(st, cid, dry_run=dry_run))
        except NotRemovable:
            continue  # still running or triaging: collected by a later gc
    return out


def expire_settled(st: S.Store, *, ttl_s: float = CAMPAIGN_TTL_S, now: float | None = None,
                   force: bool = False) -> list[str]:
    """Give every settled campaign that has none yet a TTL of ``ttl_s`` on all its own keys (see
    the module doc). At most one round per ``EXPIRY_SWEEP_S`` in the fleet (a Redis lock), unless
    ``force``. Returns the campaigns given a TTL now."""
    if ttl_s <= 0:
        return []
    now = time.time() if now is None else now
    if not force and not st.r.set(keys.lease("retention-sweep"), "1", nx=True, ex=int(EXPIRY_SWEEP_S)):
        return []
    cids = st.campaign_ids()
    pipe = st.r.pipeline(transaction=False)
    for cid in cids:
        pipe.hget(keys.campaign(cid), "expires_at")
    marks = pipe.execute() if cids else []
    done = []
    for cid, mark in zip(cids, marks):
        if mark:
            continue
        summary = st.campaign_summary(cid)
        if not summary or not summary["settled"]:
            continue
        own = campaign_keys(st, cid).keys
        pipe = st.r.pipeline()  # MULTI: every key of the campaign gets the same end
        pipe.hset(keys.campaign(cid), "expires_at", repr(now + ttl_s))
        for k in own:
            pipe.expire(k, max(1, int(ttl_s)))
        pipe.execute()
        done.append(cid)
    return done
