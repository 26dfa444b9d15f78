"""The Redis side of the farm's coordination: slice leases and claims (farm/lease.py), triage step
claims (farm/triage.py), the janitor's fleet-wide rounds, held/unowned delivery tags
(farm/unacked.py), jobs and intakes without a message (farm/rescue.py). Policy stays in those
modules; the keys and the atomic scripts are here."""

from __future__ import annotations

from fuzzfarm.farm.store import keys
from fuzzfarm.farm.store.codec import _enc

# KEYS: claim, leases, job; ARGV: owner, lease end ('' = the slice is over: drop the lease),
# member, field, value, ...   -> 1 written, 0 the claim is not ours (nothing written)
_HOLD = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('ZREM', KEYS[2], ARGV[3])
else redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3]) end
if #ARGV > 3 then redis.call('HSET', KEYS[3], unpack(ARGV, 4)) end
return 1
"""

# KEYS: leases, claim, job; ARGV: member, now, recovery text
# -> times lost (>= 1) when taken over, 0 when the lease is live, -1 when there is nothing to take
_TAKE_OVER = """
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not s then return -1 end
if tonumber(s) > tonumber(ARGV[2]) then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
local st = redis.call('HGET', KEYS[3], 'state')
if st ~= 'running' and st ~= 'queued' then return -1 end
local was = redis.call('GET', KEYS[2]) or ''
redis.call('DEL', KEYS[2])
local n = redis.call('HINCRBY', KEYS[3], 'lost', 1)
redis.call('HSET', KEYS[3], 'state', 'queued', 'recovery', ARGV[3], 'lost_worker',
           redis.call('HGET', KEYS[3], 'worker') or '', 'lost_owner', was, 'lost_at', ARGV[2], 'worker', '',
           'execs', '0', 'elapsed_s', '0', 'exec_per_s', '0', 'updated', ARGV[2])
return n
"""

# KEYS: claim; ARGV: expected holder, new holder -> 1 swapped, 0 someone else holds it now
_TAKE_FROM = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
"""

# KEYS: claim keys; ARGV: owner, ttl ms -> how many were renewed
_RENEW = """
local n = 0
for _, k in ipairs(KEYS) do
  if redis.call('GET', k) == ARGV[1] then redis.call('PEXPIRE', k, ARGV[2]); n = n + 1 end
end
return n
"""


class Coordination:
    """Mixed into :class:`fuzzfarm.farm.store.Store` (``self.r`` is its client)."""

    def _script(self, src: str):
        scripts = self.__dict__.setdefault("_scripts", {})
        if src not in scripts:
            scripts[src] = self.r.register_script(src)
        return scripts[src]

    # ---- slice leases (farm/lease.py) ---------------------------------------------------------
    def lease_holder(self, name: str) -> str | None:
        return self.r.get(keys.lease(name))

    def take_lease_from(self, name: str, holder: str, owner: str) -> bool:
        """Swap ``name``'s holder from ``holder`` to ``owner`` if ``holder`` still holds it (atomic)."""
        return bool(self._script(_TAKE_FROM)(keys=[keys.lease(name)], args=[holder, owner]))

    def hold_slice(self, claim: str, member: str, cid: str, n: int, owner: str, lease_end: float | None,
                   fields: dict) -> bool:
        """Write ``fields`` into job ``n`` and set (``lease_end`` None: drop) lease ``member``,
        only while ``owner`` holds ``claim``. False: not ours; nothing written."""
        flat: list[str] = []
        for f, v in fields.items():
            flat += [f, _enc(v)]
        args = [owner, "" if lease_end is None else repr(lease_end), member, *flat]
        return bool(self._script(_HOLD)(keys=[keys.lease(claim), keys.leases(), keys.job(cid, n)], args=args))

    def ended_leases(self, now: float, limit: int) -> list[str]:
        return list(self.r.zrangebyscore(keys.leases(), "-inf", now, start=0, num=limit))

    def take_over_lease(self, member: str, claim: str, cid: str, n: int, now: float, recovery: str) -> int:
        """Take the ended lease ``member`` (atomic). Times the job was lost, or <= 0."""
        return int(self._script(_TAKE_OVER)(keys=[keys.leases(), keys.lease(claim), keys.job(cid, n)],
                                            args=[member, repr(now), recovery]))

    def give_lease_back(self, member: str, cid: str, n: int) -> None:
        """Undo a take-over whose requeue failed: the next janitor round takes it again."""
        self.r.zadd(keys.leases(), {member: 0})
        self.r.hincrby(keys.job(cid, n), "lost", -1)

    def slices_held(self, slices: list[tuple[str, int, str]]) -> list[bool]:
        """For each (cid, member, claim): whether the slice has a lease or a claim."""
        pipe = self.r.pipeline(transaction=False)
        for _, m, claim in slices:
            pipe.zscore(keys.leases(), m)
            pipe.exists(keys.lease(claim))
        got = pipe.execute() if slices else []
        return [got[2 * i] is not None or bool(got[2 * i + 1]) for i in range(len(slices))]

    def renew_claims(self, names: list[str], owner: str, ttl_ms: int) -> int:
        """Renew each lease of ``names`` that ``owner`` holds. Returns how many were."""
        return int(self._script(_RENEW)(keys=[keys.lease(n) for n in names], args=[owner, ttl_ms]))

    def fleet_round(self, name: str, px: int) -> bool:
        """True for the one caller in the fleet that takes round ``name`` for ``px`` ms."""
        return bool(self.r.set(keys.lease(name), "1", nx=True, px=px))

    # ---- what the janitor reads of Celery's transport (farm/rescue.py, farm/unacked.py) --------
    def queued_messages(self, queues) -> list[str]:
        """Every raw message in ``queues``' lists and in ``unacked``."""
        raws: list[str] = []
        for q in queues:
            for k in keys.celery_queue_lists(q):
                raws += self.r.lrange(k, 0, -1)
        return raws + self.r.hvals(keys.celery_unacked())

    def unacked_tags(self) -> list[str]:
        return list(self.r.hkeys(keys.celery_unacked()))

    def unacked_message(self, tag: str) -> str | None:
        return self.r.hget(keys.celery_unacked(), tag)

    # ---- held delivery tags (farm/unacked.py) ------------------------------------------------
    def renew_held(self, tags: list[str], until: float, keep_for_s: float, now: float) -> None:
        pipe = self.r.pipeline(transaction=False)
        if tags:
            pipe.zadd(keys.held(), {t: until for t in tags})
            pipe.expire(keys.held(), int(keep_for_s) + 1)  # gone once no worker holds anything
        pipe.zremrangebyscore(keys.held(), "-inf", now - keep_for_s)
        pipe.execute()

    def held_until(self, tags: list[str]) -> list[float | None]:
        pipe = self.r.pipeline(transaction=False)
        for t in tags:
            pipe.zscore(keys.held(), t)
        return pipe.execute() if tags else []

    def drop_held(self, tag: str) -> None:
        self.r.zrem(keys.held(), tag)

    # ---- first-seen marks: unowned tags (unacked.py), orphans (rescue.py) --------------------
    def _marks_key(self, table: str) -> str:
        return {"unowned": keys.unowned(), "orphans": keys.orphans()}[table]

    def marks(self, table: str) -> dict[str, str]:
        return dict(self.r.hgetall(self._marks_key(table)))

    def mark(self, table: str, name: str, now: float, expire_s: float | None = None) -> None:
        self.r.hset(self._marks_key(table), name, repr(now))
        if expire_s is not None:
            self.r.expire(self._marks_key(table), int(expire_s) + 1)

    def unmark(self, table: str, *names: str) -> None:
        if names:
            self.r.hdel(self._marks_key(table), *names)

    def clear_marks(self, table: str) -> None:
        self.r.delete(self._marks_key(table))

    # ---- a corpus merge queued once (farm/jobs.py) ------------------------------------------
    def queue_merge(self, harness: str, by: str, ttl_s: float) -> bool:
        return bool(self.r.set(keys.corpus_merge_queued(harness), by, nx=True, ex=int(ttl_s)))

    def merge_done(self, harness: str) -> None:
        self.r.delete(keys.corpus_merge_queued(harness))
