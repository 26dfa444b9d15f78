"""fuzzfarm's data in Redis, behind one class: nothing outside this package touches Redis.

The keys, their types and how long each lives: :mod:`.keys` (one function per key).

A campaign's status is derived from its jobs: ``queued`` (no job started), ``running``,
``done`` (every job finished, at least one ran to its end), ``cancelled`` (every job finished,
some of them cancelled by ``fuzzfarm cancel``) or ``failed`` (every job failed).
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
import uuid
from typing import Iterable

import redis

from fuzzfarm.farm import redis_url
from fuzzfarm.farm.config import SOCKET_CONNECT_TIMEOUT_S, SOCKET_TIMEOUT_S
from fuzzfarm.farm.store import keys
from fuzzfarm.farm.store.codec import TEXT_FIELDS, _dec, _enc  # noqa: F401 - TEXT_FIELDS: part of the API
from fuzzfarm.farm.store.coordination import Coordination
from fuzzfarm.farm.store.records import Records

P = keys.P  # tests and benchmarks look at Redis under it; product code goes through Store

DELIVERY_TTL_S = 7 * 24 * 3600

JOB_QUEUED, JOB_RUNNING, JOB_DONE, JOB_FAILED = "queued", "running", "done", "failed"
JOB_CANCELLED = "cancelled"  # `fuzzfarm cancel`: stopped early on purpose; what it found is kept
JOB_FINAL = (JOB_DONE, JOB_FAILED, JOB_CANCELLED)
CAMPAIGN_FINAL = ("done", "failed", "cancelled")

# bucket states, in order
B_NEW, B_MINIMIZING, B_VERIFYING, B_FIX_CHECKING, B_DONE = "new", "minimizing", "verifying", "fix-checking", "done"
B_PROVING = "proving"  # the fix verdict and the final artifact are stored; the proof is on its way
B_FAILED = "failed"  # triage itself failed (poison pill, harness gone); the bucket and inputs stay
BUCKET_FINAL = (B_DONE, B_FAILED)
BUCKET_CHECKED = BUCKET_FINAL + (B_PROVING,)  # the fix verdict is stored (or triage failed)

STAT_FIELDS = ("execs", "exec_per_s", "cov", "ft", "corpus_size", "crashes", "elapsed_s")


class StoreError(RuntimeError):
    """Redis cannot be reached or answered nonsense; ``str`` is masked and says what to do."""


def fuzz_rate(job: dict) -> float:
    """A job's execs over the seconds it fuzzed (all its slices): 0 before it fuzzed."""
    execs = int(job.get("execs_base", 0) or 0) + int(job.get("execs", 0) or 0)
    spent = float(job.get("elapsed_base", 0) or 0) + float(job.get("elapsed_s", 0) or 0)
    return execs / spent if spent > 0 else 0.0


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def unb64(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"), validate=True)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def bucket_id(harness: str, variant: str, signature: str) -> str:
    """Deterministic bucket id: the same signature of the same harness/variant is one bucket on
    every collector, so creation and joins are idempotent."""
    return "b" + hashlib.sha1(f"{harness}\0{variant}\0{signature}".encode()).hexdigest()[:12]


def new_campaign_id() -> str:
    return "c" + time.strftime("%m%d%H%M", time.gmtime()) + uuid.uuid4().hex[:6]


# KEYS: sig, bucket, bucket inputs, buckets zset
# ARGV: bucket id, input sha256, now, then field/value pairs for a new bucket
# Returns {created (0/1), counted (0/1), count}
_CREATE_OR_JOIN = """
local created = 0
if redis.call('SET', KEYS[1], ARGV[1], 'NX') then
  created = 1
  for i = 4, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
  redis.call('HSET', KEYS[2], 'id', ARGV[1], 'count', 0, 'created', ARGV[3], 'state', 'new')
  redis.call('ZADD', KEYS[4], ARGV[3], ARGV[1])
end
local counted = redis.call('SADD', KEYS[3], ARGV[2])
local count = redis.call('HGET', KEYS[2], 'count')
if counted == 1 then
  count = redis.call('HINCRBY', KEYS[2], 'count', 1)
  redis.call('HSET', KEYS[2], 'last_seen', ARGV[3])
end
return {created, counted, tonumber(count)}
"""

# KEYS: bucket, its inputs set; ARGV: input sha256, now. Joins an existing bucket only.
# Returns nil (no bucket) or {counted (0/1), count}
_JOIN_UNREPLAYED = """
if redis.call('EXISTS', KEYS[1]) == 0 then return nil end
local counted = redis.call('SADD', KEYS[2], ARGV[1])
local count = redis.call('HGET', KEYS[1], 'count')
if counted == 1 then
  count = redis.call('HINCRBY', KEYS[1], 'count', 1)
  redis.call('HINCRBY', KEYS[1], 'joined_unreplayed', 1)
  redis.call('HSET', KEYS[1], 'last_seen', ARGV[2])
end
return {counted, tonumber(count)}
"""

# KEYS: bucket; ARGV: expected state(s) comma separated, new state. Returns 1 when moved.
_ADVANCE = """
local cur = redis.call('HGET', KEYS[1], 'state')
if not cur then return -1 end
for s in string.gmatch(ARGV[1], '[^,]+') do
  if s == cur then redis.call('HSET', KEYS[1], 'state', ARGV[2]); return 1 end
end
return 0
"""


def connect(url: str, *, patient: bool = False, socket_timeout: float = SOCKET_TIMEOUT_S) -> redis.Redis:
    """A redis-py client with short timeouts (no hang when Redis is down). ``patient`` (workers):
    a connection error is retried for about a minute, so a Redis restart is ridden out."""
    redis_url.validate(url)
    kw = {}
    if patient:
        from redis.backoff import ExponentialWithJitterBackoff
        from redis.retry import Retry

        from fuzzfarm.farm.config import WORKER_REDIS_RETRIES
        kw["retry"] = Retry(ExponentialWithJitterBackoff(base=0.2, cap=2.0), WORKER_REDIS_RETRIES)
    kw.update(redis_url.client_options(url))  # rediss://: the TLS handshake bounded like a connect
    return redis.Redis.from_url(url, decode_responses=True,
                                socket_connect_timeout=SOCKET_CONNECT_TIMEOUT_S,
                                socket_timeout=socket_timeout, health_check_interval=10,
                                socket_keepalive=True, retry_on_timeout=True, **kw)


class Store(Coordination, Records):
    """fuzzfarm's data in Redis. Every method is one or a few round trips; none blocks."""

    def __init__(self, url: str, client: redis.Redis | None = None, *, patient: bool = False):
        self.url = url
        self.r = client if client is not None else connect(url, patient=patient)
        self._create_or_join = self.r.register_script(_CREATE_OR_JOIN)
        self._advance = self.r.register_script(_ADVANCE)
        self._join_unreplayed = self.r.register_script(_JOIN_UNREPLAYED)

    def close(self) -> None:
        self.r.close()

    # ---- health --------------------------------------------------------------------------
    def ping(self) -> None:
        """Raise StoreError (masked, says what to do) unless Redis answers."""
        try:
            self.r.ping()
        except redis.AuthenticationError as e:
            raise StoreError(f"Redis at {redis_url.mask(self.url)} refused the password ({e}); "
                             f"fix the password in `fuzzfarm --redis URL ...` or ${redis_url.ENV}") from None
        except redis.RedisError as e:
            msg = redis_url.mask_text(str(e), self.url)
            if isinstance(e, redis.TimeoutError) and self.url.startswith("rediss://"):
                msg += "; a Redis without TLS never answers the TLS handshake: if it serves plain TCP, use redis://"
            raise StoreError(f"cannot reach Redis at {redis_url.mask(self.url)} ({msg}); start a local farm "
                             f"with `fuzzfarm up` (or start redis-server), or point `fuzzfarm --redis URL ...` or "
                             f"${redis_url.ENV} at a running one") from None

    # ---- campaigns and jobs --------------------------------------------------------------
    def create_campaign(self, spec: dict) -> str:
        """Record a campaign (``spec``: harness, variant, strategy, jobs, duration_s,
        harness_hash, version, ...) and its jobs as queued. Returns the campaign id."""
        cid = spec.get("id") or new_campaign_id()
        now = time.time()
        rec = {**spec, "id": cid, "created": now}
        pipe = self.r.pipeline()
        pipe.hset(keys.campaign(cid), mapping={k: _enc(v) for k, v in rec.items()})
        for n in range(int(spec["jobs"])):
            pipe.hset(keys.job(cid, n), mapping={"state": JOB_QUEUED, "job": n, "campaign": cid,
                                                      "updated": now, "deliveries": 0})
        pipe.zadd(keys.campaigns(), {cid: now})
        pipe.execute()
        return cid

    def campaign(self, cid: str) -> dict | None:
        raw = self.r.hgetall(keys.campaign(cid))
        return {k: _dec(k, v) for k, v in raw.items()} if raw else None

    def request_cancel(self, cid: str) -> list[int]:
        """Mark campaign ``cid`` cancelled: a slice that starts from now on ends its job as
        ``cancelled`` without running, a running one stops at its next stats tick. Queued jobs
        are marked cancelled at once (their messages are dropped when delivered). Returns the
        numbers of the jobs that were running (they stop within seconds)."""
        self.r.hset(keys.campaign(cid), "cancel_requested", time.time())
        running = []
        for j in self.jobs(cid):
            n = int(j.get("job", 0))
            if j.get("state") == JOB_QUEUED:
                self.update_job(cid, n, state=JOB_CANCELLED, finished=time.time())
            elif j.get("state") == JOB_RUNNING:
                running.append(n)
        return running

    def cancel_requested(self, cid: str) -> bool:
        return bool(self.r.hexists(keys.campaign(cid), "cancel_requested"))

    # ---- warm shutdown: a worker asks its running slices to end early (farm/shutdown.py) -------
    def request_worker_stop(self, hostname: str, pid: int, ttl_s: float = 3600) -> None:
        self.r.set(keys.stopping(hostname, pid), time.time(), ex=int(ttl_s))

    def worker_stop_requested(self, hostname: str, pid: int) -> bool:
        return bool(self.r.exists(keys.stopping(hostname, pid)))

    def campaign_ids(self) -> list[str]:
        return list(self.r.zrange(keys.campaigns(), 0, -1))

    def job(self, cid: str, n: int) -> dict:
        return {k: _dec(k, v) for k, v in self.r.hgetall(keys.job(cid, n)).items()}

    def jobs(self, cid: str) -> list[dict]:
        camp = self.campaign(cid)
        if camp is None:
            return []
        pipe = self.r.pipeline()
        for n in range(int(camp["jobs"])):
            pipe.hgetall(keys.job(cid, n))
        return [{k: _dec(k, v) for k, v in raw.items()} for raw in pipe.execute()]

    def update_job(self, cid: str, n: int, **fields) -> None:
        fields["updated"] = time.time()
        self.r.hset(keys.job(cid, n), mapping={k: _enc(v) for k, v in fields.items()})

    def job_stats(self, cid: str, n: int, stats: dict) -> None:
        """Stream a job's live stats (the engine's JobStats as a dict)."""
        self.update_job(cid, n, **{k: stats[k] for k in STAT_FIELDS if k in stats})
        self.record_series(cid, n, stats)

    # ---- time series of a campaign (the web view's plots) -----------------------------------
    # One point per job at most every ``duration / (SERIES_CAP / jobs)`` seconds (>= 1 s), so a
    # whole campaign fits in SERIES_CAP points; LTRIM keeps the newest SERIES_CAP whatever
    # happens, and the key expires SERIES_TTL_S after the campaign's last point.
    SERIES_CAP = 2000
    SERIES_TTL_S = 30 * 24 * 3600
    SERIES_EXPIRE_EVERY_S = 60.0

    def record_series(self, cid: str, n: int, stats: dict, now: float | None = None) -> bool:
        """Append one point ``{t, job, execs, cov, ft, corpus}`` (execs counted over the whole job,
        earlier slices included) unless this job's last point is too recent. True when added."""
        now = time.time() if now is None else now
        last = getattr(self, "_series_last", None)
        if last is None:
            last = self._series_last = {}
        if cid not in last:
            camp = self.campaign(cid) or {}
            jobs, dur = int(camp.get("jobs", 1) or 1), float(camp.get("duration_s", 60) or 60)
            last[cid] = {"every": max(1.0, dur * jobs / self.SERIES_CAP)}
        seen = last[cid]
        if now - seen.get(n, float("-inf")) < seen["every"]:
            return False
        seen[n] = now
        base = stats.get("execs_base")  # the slice's caller knows it: one HGET less per point
        if base is None:
            base = self.r.hget(keys.job(cid, n), "execs_base")
        base = int(base or 0)
        point = {"t": round(now, 3), "job": n, "execs": base + int(stats.get("execs", 0) or 0),
                 "cov": int(stats.get("cov", 0) or 0), "ft": int(stats.get("ft", 0) or 0),
                 "corpus": int(stats.get("corpus_size", 0) or 0)}
        key = keys.campaign_series(cid)
        # No MULTI/EXEC (a reader may see one point over the cap for a moment) and the expiry
        # renewed once a minute, not at every point: 2 commands a point instead of 6, at one
        # point per job per second (docs/OPERATIONS.md, Redis traffic).
        pipe = self.r.pipeline(transaction=False)
        pipe.rpush(key, json.dumps(point, sort_keys=True))
        pipe.ltrim(key, -self.SERIES_CAP, -1)
        if now - seen.get("expire_at", float("-inf")) >= self.SERIES_EXPIRE_EVERY_S:
            pipe.expire(key, self.SERIES_TTL_S)
            seen["expire_at"] = now
        pipe.execute()
        return True

    def series(self, cid: str) -> list[dict]:
        """The campaign's recorded points, oldest first."""
        return [json.loads(p) for p in self.r.lrange(keys.campaign_series(cid), 0, -1)]

    def campaign_summary(self, cid: str) -> dict | None:
        """Spec + derived status + totals over jobs, crashes and buckets."""
        camp = self.campaign(cid)
        if camp is None:
            return None
        jobs = self.jobs(cid)
        pipe = self.r.pipeline()
        pipe.scard(keys.campaign_crashes(cid))
        pipe.scard(keys.campaign_intaken(cid))
        pipe.zrange(keys.campaign_buckets(cid), 0, -1, withscores=True)
        pipe.zrange(keys.campaign_rechecks(cid), 0, -1)  # its bound's triage of known buckets (farm/recheck.py)
        n_crashes, n_intaken, joined, rechecks = pipe.execute()
        pipe = self.r.pipeline()  # one round trip for all the campaign's buckets
        for bid, _ in joined:
            pipe.hgetall(keys.bucket(bid))
        for rid in rechecks:
            pipe.hget(keys.bucket(rid), "state")
        raws = pipe.execute() if joined or rechecks else []
        raws, recheck_states = raws[:len(joined)], raws[len(joined):]
        hits = [(t, {k: _dec(k, v) for k, v in raw.items()}) for (_, t), raw in zip(joined, raws) if raw]
        buckets = [b for _, b in hits]
        # when the campaign first had a downloadable reproducer (its own or a known bucket's)
        ready = [max(t, float(b["first_artifact_at"])) for t, b in hits if b.get("first_artifact_at")]
        states = [j.get("state", JOB_QUEUED) for j in jobs]
        status = derive_status(states)
        execs = sum(int(j.get("execs_base", 0) or 0) + int(j.get("execs", 0) or 0) for j in jobs)
        running = [j for j in jobs if j.get("state") == JOB_RUNNING]
        spent = [float(j.get("elapsed_base", 0) or 0) + float(j.get("elapsed_s", 0) or 0) for j in jobs]
        # live: the sum of the running jobs' rates; afterwards: all execs over the per-job fuzzing time
        eps = (sum(float(j.get("exec_per_s", 0) or 0) for j in running) if running
               else execs / max(1e-9, sum(spent) / max(1, len(jobs))) if any(spent) else 0.0)
        fuzzed = sum(min(t, float(camp["duration_s"])) if j.get("state") not in JOB_FINAL else float(camp["duration_s"])
                     for j, t in zip(jobs, spent))
        triaged = (n_intaken >= n_crashes and all(b.get("state") in BUCKET_FINAL for b in buckets)
                   and all(s in BUCKET_FINAL or s is None for s in recheck_states))  # None: its starter died
        # every bucket verified and fix-checked (its verdict stored); proofs may still run
        checked = (n_intaken >= n_crashes and all(b.get("state") in BUCKET_CHECKED for b in buckets)
                   and all(s in BUCKET_CHECKED or s is None for s in recheck_states))
        return {
            **camp, "status": status, "jobs_state": states,
            "jobs_done": states.count(JOB_DONE), "jobs_failed": states.count(JOB_FAILED),
            "execs": execs, "exec_per_s": round(eps, 1),
            # every job's execs over the seconds it fuzzed, summed over the jobs: what the CLI shows
            "fuzz_exec_per_s": round(sum(fuzz_rate(j) for j in jobs), 1),
            "cov": max((int(j.get("cov", 0) or 0) for j in jobs), default=0),
            "corpus_size": self.corpus_size(camp["harness"]),
            "crashes": n_crashes, "intaken": n_intaken, "buckets": len(buckets),
            "buckets_ready": sum(1 for b in buckets if b.get("state") == B_DONE),
            "fuzz_progress": fuzzed / max(1e-9, float(camp["duration_s"]) * int(camp["jobs"])),
            "settled": status in CAMPAIGN_FINAL and triaged,
            "fix_checked": status in CAMPAIGN_FINAL and checked,
            "proving": sorted(b["id"] for b in buckets if b.get("state") == B_PROVING and b.get("id")),
            "cancel_requested": bool(camp.get("cancel_requested")),
            "first_reproducer_s": round(min(ready) - float(camp["created"]), 1) if ready else None,
            "errors": sorted({j["error"] for j in jobs if j.get("error")}),
        }

    # ---- crashes ---------------------------------------------------------------------------
    def report_crash(self, cid: str, job: int, harness: str, variant: str, data: bytes,
                     artifact: str = "crash", log_tail: str = "", fuzz_timeout_s: float | None = None,
                     engine_signature: str = "") -> tuple[str, bool]:
        """Keep a crash input before anything else happens to it. Returns (sha256, new for this
        campaign). Reporting the same input again changes nothing. ``fuzz_timeout_s``: the
        fuzzer's own per-input timeout (a hang is replayed for that long, not the collector's).
        ``engine_signature``: the bucket signature the fuzz child computed for it (engine
        ``CrashReport.signature``): intake may join that bucket without a replay (farm/triage.py)."""
        sha = sha256(data)
        key = keys.crash(harness, variant, sha)
        pipe = self.r.pipeline()
        pipe.hsetnx(key, "data", b64(data))
        pipe.hsetnx(key, "artifact", artifact)
        pipe.hsetnx(key, "campaign", cid)
        pipe.hsetnx(key, "job", job)
        pipe.hsetnx(key, "log_tail", log_tail[-4000:])
        pipe.hsetnx(key, "first_seen", time.time())
        if fuzz_timeout_s is not None:
            pipe.hsetnx(key, "fuzz_timeout_s", fuzz_timeout_s)
        if engine_signature:
            pipe.hsetnx(key, "engine_signature", engine_signature)
        pipe.hsetnx(keys.campaign_crash_jobs(cid), sha, job)  # which job reported it first (status's per-job counts)
        pipe.sadd(keys.campaign_crashes(cid), sha)
        new = pipe.execute()[-1] == 1
        return sha, new

    def campaign_crash_shas(self, cid: str) -> list[str]:
        """The sha256 of every distinct crash input campaign ``cid`` reported, sorted."""
        return sorted(self.r.smembers(P + f"campaign:{cid}:crashes"))

    def crashes_by_job(self, cid: str) -> dict[int | None, int]:
        """How many of campaign ``cid``'s distinct crash inputs each job reported first: they sum
        to the campaign's ``crashes``. (Inputs reported before the per-campaign record existed
        count for the job their crash record names, None when it names none.)"""
        camp = self.campaign(cid)
        shas = sorted(self.r.smembers(keys.campaign_crashes(cid)))
        first = self.r.hgetall(keys.campaign_crash_jobs(cid))
        missing = [sha for sha in shas if sha not in first]
        if missing and camp is not None:
            pipe = self.r.pipeline()
            for sha in missing:
                pipe.hget(keys.crash(camp["harness"], camp["variant"], sha), "job")
            first = {**first, **dict(zip(missing, pipe.execute()))}
        counts: dict[int | None, int] = {}
        for sha in shas:
            j = first.get(sha)
            key = int(j) if j not in (None, "") else None
            counts[key] = counts.get(key, 0) + 1
        return counts

    def campaign_bucket_counts(self, cid: str) -> dict[str, int]:
        """How many of campaign ``cid``'s distinct crash inputs landed in each bucket (one round
        trip): a campaign's tables count its own inputs, which sum to its ``crashes``' triaged part."""
        camp = self.campaign(cid) or {}
        shas = sorted(self.r.smembers(keys.campaign_crashes(cid)))
        pipe = self.r.pipeline()
        for sha in shas:
            pipe.hget(keys.crash(camp.get("harness"), camp.get("variant"), sha), "bucket")
        counts: dict[str, int] = {}
        for bid in (pipe.execute() if shas else ()):
            if bid:
                counts[bid] = counts.get(bid, 0) + 1
        return counts

    def crash(self, harness: str, variant: str, sha: str) -> dict | None:
        raw = self.r.hgetall(keys.crash(harness, variant, sha))
        if not raw:
            return None
        return {**raw, "data": unb64(raw["data"])}

    def set_crash(self, harness: str, variant: str, sha: str, **fields) -> None:
        self.r.hset(keys.crash(harness, variant, sha), mapping={k: _enc(v) for k, v in fields.items()})

    def mark_intaken(self, cid: str, sha: str, bid: str | None) -> None:
        pipe = self.r.pipeline()
        if bid:
            pipe.zadd(keys.campaign_buckets(cid), {bid: time.time()}, nx=True)
        pipe.sadd(keys.campaign_intaken(cid), sha)
        pipe.execute()

    def pending_intakes(self, cid: str, job: int | None = None) -> list[str]:
        """sha256 of the crash inputs campaign ``cid`` reported (first reported by job ``job``,
        when given) whose intake has not finished."""
        shas = sorted(self.r.sdiff(keys.campaign_crashes(cid), keys.campaign_intaken(cid)))
        camp = self.campaign(cid)
        if job is None or not shas or camp is None:
            return shas
        pipe = self.r.pipeline()
        for sha in shas:
            pipe.hget(keys.crash(camp["harness"], camp["variant"], sha), "job")
        return [sha for sha, j in zip(shas, pipe.execute()) if j is not None and int(j) == int(job)]

    # ---- buckets ---------------------------------------------------------------------------
    def create_or_join_bucket(self, *, harness: str, variant: str, signature: str, input_sha256: str,
                              fields: dict) -> tuple[str, bool, bool, int]:
        """Atomically create the bucket of ``signature`` or join it, counting ``input_sha256``
        once. Returns (bucket id, created, counted, count)."""
        bid = bucket_id(harness, variant, signature)
        rec = {**fields, "harness": harness, "variant": variant, "signature": signature}
        argv = [bid, input_sha256, time.time()]
        for k, v in rec.items():
            argv += [k, _enc(v)]
        created, counted, count = self._create_or_join(
            keys=[keys.sig(harness, variant, signature), keys.bucket(bid),
                  keys.bucket_inputs(bid), keys.buckets()], args=argv)
        return bid, bool(created), bool(counted), int(count)

    def join_unreplayed(self, bid: str, input_sha256: str) -> tuple[bool, int] | None:
        """Count ``input_sha256`` in existing bucket ``bid`` without creating anything, and in
        its ``joined_unreplayed`` when counted (an input joined by the fuzz engine's signature,
        not by a collector replay). None: no such bucket. Returns (counted, count)."""
        res = self._join_unreplayed(keys=[keys.bucket(bid), keys.bucket_inputs(bid)], args=[input_sha256, time.time()])
        return None if res is None else (bool(res[0]), int(res[1]))

    def distrust_engine_signature(self, harness: str, variant: str, input_sha256: str) -> None:
        """A replay at intake gave another signature than the fuzz engine said for crash
        ``input_sha256``: no crash of ``harness``/``variant`` joins a bucket unreplayed from now on."""
        self.r.set(P + f"engine_signature:distrusted:{harness}:{variant}", input_sha256)

    def engine_signature_distrusted(self, harness: str, variant: str) -> bool:
        return bool(self.r.exists(P + f"engine_signature:distrusted:{harness}:{variant}"))

    def bucket_for_signature(self, harness: str, variant: str, signature: str) -> str | None:
        return self.r.get(keys.sig(harness, variant, signature))

    def bucket(self, bid: str) -> dict | None:
        raw = self.r.hgetall(keys.bucket(bid))
        return {k: _dec(k, v) for k, v in raw.items()} if raw else None

    def bucket_ids(self) -> list[str]:
        return list(self.r.zrange(keys.buckets(), 0, -1))

    def campaign_bucket_times(self, cid: str) -> list[tuple[str, float]]:
        """(bucket id, when campaign ``cid`` first hit it), oldest first."""
        return [(b, float(t)) for b, t in self.r.zrange(keys.campaign_buckets(cid), 0, -1, withscores=True)]

    def buckets(self, bids: list[str]) -> list[dict]:
        """The records of ``bids`` in one round trip (unknown ids left out)."""
        pipe = self.r.pipeline()
        for bid in bids:
            pipe.hgetall(keys.bucket(bid))
        return [{k: _dec(k, v) for k, v in raw.items()} for raw in (pipe.execute() if bids else []) if raw]


    def campaign_bucket_ids(self, cid: str) -> list[str]:
        return list(self.r.zrange(keys.campaign_buckets(cid), 0, -1))

    def bucket_inputs(self, bid: str) -> set[str]:
        return set(self.r.smembers(keys.bucket_inputs(bid)))

    def update_bucket(self, bid: str, **fields) -> None:
        self.r.hset(keys.bucket(bid), mapping={k: _enc(v) for k, v in fields.items()})

    def advance_bucket(self, bid: str, expected: Iterable[str], new_state: str) -> bool:
        """Move the bucket to ``new_state`` if it is in one of ``expected`` (atomic)."""
        return self._advance(keys=[keys.bucket(bid)], args=[",".join(expected), new_state]) == 1

    # ---- root-cause groups: the user's overrides (collector.grouping computes the rest) -------
    def group_overrides(self) -> dict[str, str]:
        return dict(self.r.hgetall(keys.groups_override()))

    def group_names(self) -> dict[str, str]:
        return dict(self.r.hgetall(keys.groups_name()))

    def set_group(self, bucket_ids: Iterable[str], gid: str, name: str | None = None) -> None:
        """Put buckets into group ``gid`` (named ``name`` when given); buckets are not touched."""
        pipe = self.r.pipeline()
        for bid in bucket_ids:
            pipe.hset(keys.groups_override(), bid, gid)
        if name:
            pipe.hset(keys.groups_name(), gid, name)
        pipe.execute()

    # ---- artifacts -------------------------------------------------------------------------
    def put_artifact(self, bid: str, files: dict[str, bytes]) -> None:
        """Replace the bucket's artifact with ``files`` (name -> bytes), with a sha256 map that
        :meth:`artifact` checks on the way out."""
        mapping = {name: b64(data) for name, data in files.items()}
        mapping[".sha256"] = json.dumps({n: sha256(d) for n, d in files.items()}, sort_keys=True)
        key = keys.artifact(bid)
        pipe = self.r.pipeline()  # MULTI/EXEC: readers see the old or the new artifact, never a mix
        pipe.delete(key)
        pipe.hset(key, mapping=mapping)
        now = time.time()
        pipe.hset(keys.bucket(bid), mapping={"artifact_at": now})
        pipe.hsetnx(keys.bucket(bid), "first_artifact_at", now)
        pipe.execute()

    def artifact(self, bid: str) -> dict[str, bytes] | None:
        """The stored artifact files, each checked against its stored sha256 (StoreError on a
        mismatch); None when there is none yet."""
        raw = self.r.hgetall(keys.artifact(bid))
        if not raw:
            return None
        sums = json.loads(raw.pop(".sha256", "{}"))
        files = {}
        for name, text in raw.items():
            data = unb64(text)
            if sums.get(name) != sha256(data):
                raise StoreError(f"artifact of bucket {bid} is corrupt in Redis ({name}: sha256 mismatch); "
                                 f"re-run its triage")
            files[name] = data
        return files

    # ---- corpus ----------------------------------------------------------------------------
    def corpus(self, harness: str) -> list[bytes]:
        return [unb64(v) for _, v in sorted(self.r.hgetall(keys.corpus(harness)).items())]

    def corpus_size(self, harness: str) -> int:
        return int(self.r.hlen(keys.corpus(harness)))

    def add_corpus(self, harness: str, inputs: Iterable[bytes]) -> int:
        """Add inputs (content-addressed by sha1). Returns how many were new."""
        mapping = {hashlib.sha1(d).hexdigest(): b64(d) for d in inputs}
        if not mapping:
            return 0
        pipe = self.r.pipeline()
        for k, v in mapping.items():
            pipe.hsetnx(keys.corpus(harness), k, v)
        return sum(pipe.execute())

    def corpus_merged_size(self, harness: str) -> int:
        """Corpus size right after the last ``-merge=1`` prune (0: never pruned)."""
        return int(self.r.get(keys.corpus_merged_size(harness)) or 0)

    def set_corpus_merged_size(self, harness: str, size: int) -> None:
        self.r.set(keys.corpus_merged_size(harness), size)

    def prune_corpus(self, harness: str, snapshot: Iterable[bytes], keep: Iterable[bytes]) -> int:
        """Remove from the corpus the inputs of ``snapshot`` not in ``keep`` (a merge result).
        Inputs added by others since the snapshot stay. Returns how many were removed."""
        keep_ids = {hashlib.sha1(d).hexdigest() for d in keep}
        drop = [h for h in {hashlib.sha1(d).hexdigest() for d in snapshot} if h not in keep_ids]
        return int(self.r.hdel(keys.corpus(harness), *drop)) if drop else 0

    # ---- leases: one task works on a bucket step at a time --------------------------------
    def acquire_lease(self, name: str, owner: str, ttl_s: float) -> bool:
        """Take ``name`` for ``owner`` (a task id) for ``ttl_s``; True also when ``owner`` already
        holds it (a redelivery of the same task)."""
        key = keys.lease(name)
        if self.r.set(key, owner, nx=True, ex=max(1, int(ttl_s))):
            return True
        return self.r.get(key) == owner

    def proof(self, key: str) -> dict | None:
        """The proof stored under ``key`` (farm/triage.py ``proof_key``), or None."""
        raw = self.r.get(keys.proof(key))
        return json.loads(raw) if raw else None

    PROOF_TTL_S = 7 * 24 * 3600  # a proof outlives its buckets' gc by at most this (it is rebuilt on demand)

    def put_proof(self, key: str, res: dict) -> None:
        self.r.set(keys.proof(key), json.dumps(res), ex=self.PROOF_TTL_S)

    def take_slot(self, prefix: str, owner: str, n: int, ttl_s: float) -> str | None:
        """One of the ``n`` leases ``prefix:0`` .. ``prefix:n-1`` for ``owner`` (the one it already
        holds, else a free one), or None when all are held by others."""
        for i in range(max(1, n)):
            if self.acquire_lease(f"{prefix}:{i}", owner, ttl_s):
                return f"{prefix}:{i}"
        return None

    def release_lease(self, name: str, owner: str) -> None:
        key = keys.lease(name)
        if self.r.get(key) == owner:
            self.r.delete(key)

    # ---- deliveries (poison pills, docs/TRAPS.md#g15) ----------------------------------------------------
    def count_delivery(self, task_id: str) -> int:
        key = keys.deliveries(task_id)
        pipe = self.r.pipeline()
        pipe.incr(key)
        pipe.expire(key, DELIVERY_TTL_S)
        return int(pipe.execute()[0])

    def uncount_delivery(self, task_id: str) -> None:
        """Undo :meth:`count_delivery` for a delivery handed back on purpose (a worker stopped
        with SIGQUIT requeues its running tasks): that is no death of a poison pill."""
        key = keys.deliveries(task_id)
        if int(self.r.get(key) or 0) > 0:
            self.r.decr(key)


def derive_status(job_states: list[str]) -> str:
    if not job_states or all(s == JOB_QUEUED for s in job_states):
        return "queued"
    if any(s not in JOB_FINAL for s in job_states):
        return "running"
    if all(s == JOB_FAILED for s in job_states):
        return "failed"
    if JOB_CANCELLED in job_states:
        return "cancelled"
    return "done"
