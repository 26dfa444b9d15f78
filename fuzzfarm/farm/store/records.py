"""Side records of campaigns, buckets and corpora that farm modules keep: the ``mix`` portfolio's
counts (farm/portfolio.py), version skew (farm/skew.py), verdict contexts (farm/recheck.py),
hand-back counters, the engine-signature distrust mark (farm/triage.py), the corpus cap
(farm/corpus_bound.py) and bounded exhaustive searches (farm/explore_jobs.py)."""

from __future__ import annotations

import json

from fuzzfarm.farm.store import keys


class Records:
    """Mixed into :class:`fuzzfarm.farm.store.Store` (``self.r`` is its client)."""

    # ---- counters on a job, a crash or a bucket --------------------------------------------
    def count_on(self, what: str, ident: tuple, field: str) -> int:
        """Add one to ``field`` of the job (cid, n), crash (harness, variant, sha) or bucket (bid,)."""
        return int(self.r.hincrby(self._record_key(what, ident), field, 1))

    def note_on(self, what: str, ident: tuple, field: str, value: str) -> None:
        self.r.hset(self._record_key(what, ident), field, value)

    @staticmethod
    def _record_key(what: str, ident: tuple) -> str:
        return {"job": keys.job, "crash": keys.crash, "bucket": keys.bucket}[what](*ident)

    def crash_fields(self, harness: str, variant: str, shas: list[str], field: str) -> list[str | None]:
        pipe = self.r.pipeline()
        for sha in shas:
            pipe.hget(keys.crash(harness, variant, sha), field)
        return pipe.execute() if shas else []

    def settled_marks(self, cids: list[str]) -> list[str | None]:
        """Each campaign's ``expires_at`` (set once settled, store/retention.py)."""
        pipe = self.r.pipeline(transaction=False)
        for cid in cids:
            pipe.hget(keys.campaign(cid), "expires_at")
        return pipe.execute() if cids else []

    # ---- the mix portfolio (farm/portfolio.py) -----------------------------------------------
    def mix_counts(self, cid: str) -> dict[str, str]:
        return dict(self.r.hgetall(keys.campaign_mix(cid)))

    def mix_note_crash(self, cid: str, sha: str, note: str) -> None:
        self.r.hsetnx(keys.campaign_mix(cid), f"crash.{sha}", note)  # the first note wins

    def mix_add(self, cid: str, floats: dict[str, float], ints: dict[str, int]) -> None:
        pipe = self.r.pipeline()
        for f, v in floats.items():
            pipe.hincrbyfloat(keys.campaign_mix(cid), f, v)
        for f, v in ints.items():
            pipe.hincrby(keys.campaign_mix(cid), f, v)
        pipe.execute()

    # ---- version skew (farm/skew.py) ----------------------------------------------------------
    def skew_seen(self, cid: str, worker: str, local_hash: str) -> None:
        self.r.hset(keys.campaign_skew(cid), worker, local_hash)

    def skew_hashes(self, cid: str) -> dict[str, str]:
        return dict(self.r.hgetall(keys.campaign_skew(cid)))

    def skew_hand_back(self, cid: str, n: int, worker: str, local_hash: str) -> tuple[int, list[str]]:
        """Record ``worker``'s hash and one more hand-back of job ``n``: (hand-backs, hashes seen)."""
        pipe = self.r.pipeline()
        pipe.hset(keys.campaign_skew(cid), worker, local_hash)
        pipe.hincrby(keys.job(cid, n), "skew_handbacks", 1)
        pipe.hvals(keys.campaign_skew(cid))
        _, count, hashes = pipe.execute()
        return int(count), list(hashes)

    def campaign_field_once(self, cid: str, field: str, value: str) -> str:
        """Set the campaign's ``field`` unless set; returns what it holds."""
        self.r.hsetnx(keys.campaign(cid), field, value)
        return self.r.hget(keys.campaign(cid), field) or value

    # ---- verdict contexts (farm/recheck.py) ----------------------------------------------------
    def set_context(self, bid: str, cid: str, ctx: str, *, keep: bool = False) -> None:
        """Campaign ``cid``'s crashes joined bucket ``bid`` under ``ctx`` (``keep``: unless recorded)."""
        (self.r.hsetnx if keep else self.r.hset)(keys.bucket_contexts(bid), cid, ctx)

    def contexts(self, bid: str) -> dict[str, str]:
        return dict(self.r.hgetall(keys.bucket_contexts(bid)))

    def context_of(self, bid: str, cid: str) -> str | None:
        return self.r.hget(keys.bucket_contexts(bid), cid)

    def start_recheck(self, bid: str, ctx: str, cid: str, rid: str, now: float) -> bool:
        """Campaign ``cid`` waits for record ``rid``; True for the one caller that starts it (SET NX)."""
        self.r.zadd(keys.campaign_rechecks(cid), {rid: now}, nx=True)  # its triage settles the campaign
        return bool(self.r.set(keys.recheck(bid, ctx), rid, nx=True))

    # ---- the engine's signature distrusted (farm/triage.py) -----------------------------------
    def distrust_engine_signature(self, harness: str, variant: str, sha: str) -> None:
        self.r.set(keys.engine_signature_distrusted(harness, variant), sha)

    def engine_signature_distrusted(self, harness: str, variant: str) -> bool:
        return bool(self.r.exists(keys.engine_signature_distrusted(harness, variant)))

    # ---- the corpus cap (farm/corpus_bound.py) ------------------------------------------------
    def trim_corpus(self, harness: str, cap: int) -> int:
        """Remove inputs beyond ``cap``, largest first. Returns how many."""
        key = keys.corpus(harness)
        if cap <= 0 or self.r.hlen(key) <= cap:
            return 0
        inputs = self.r.hgetall(key)  # sha1 -> base64
        drop = sorted(inputs, key=lambda k: (len(inputs[k]), k))[cap:]
        return int(self.r.hdel(key, *drop)) if drop else 0

    # ---- bounded exhaustive searches (farm/explore_jobs.py) -----------------------------------
    def create_exploration(self, eid: str, rec: dict, root: str, root_items, now: float) -> None:
        pipe = self.r.pipeline()
        pipe.hset(keys.exploration(eid), mapping={k: json.dumps(v) for k, v in rec.items()})
        pipe.hset(keys.exploration(eid, "items"), root, json.dumps(root_items))
        pipe.zadd(keys.explorations(), {eid: now})
        pipe.execute()

    def exploration(self, eid: str) -> dict | None:
        raw = self.r.hgetall(keys.exploration(eid))
        return {k: json.loads(v) for k, v in raw.items()} if raw else None

    def exploration_ids(self) -> list[str]:
        return list(self.r.zrange(keys.explorations(), 0, -1))

    def subtree(self, eid: str, iid: str):
        """Subtree ``iid``'s items (decoded), None when unknown."""
        raw = self.r.hget(keys.exploration(eid, "items"), iid)
        return None if raw is None else json.loads(raw)

    def subtree_done(self, eid: str, iid: str) -> bool:
        return bool(self.r.sismember(keys.exploration(eid, "done"), iid))

    def exploration_stopped(self, eid: str) -> bool:
        return bool(self.r.exists(keys.exploration(eid, "stop")))

    def stop_exploration(self, eid: str, why: str) -> None:
        self.r.set(keys.exploration(eid, "stop"), why)

    def cancel_subtree(self, eid: str, iid: str, error: str | None = None) -> None:
        if error is not None:
            self.r.rpush(keys.exploration(eid, "errors"), f"{iid}: {error}")
        self.r.sadd(keys.exploration(eid, "cancelled"), iid)

    def add_schedule_classes(self, eid: str, classes: list) -> None:
        for i in range(0, len(classes), 5000):
            self.r.sadd(keys.exploration(eid, "classes"), *classes[i:i + 5000])

    def add_exploration_failure(self, eid: str, iid: str, failure: dict) -> None:
        if self.r.sadd(keys.exploration(eid, "failed_items"), iid):
            self.r.rpush(keys.exploration(eid, "failures"), json.dumps(failure))

    def add_subtrees(self, eid: str, children: list) -> None:
        for cid, ch in children:
            self.r.hsetnx(keys.exploration(eid, "items"), cid, json.dumps(ch))

    def finish_subtree(self, eid: str, iid: str, runs: int, pruned: int, tolerated: dict) -> None:
        """Count subtree ``iid``'s runs once (a redelivery adds nothing)."""
        if self.r.sadd(keys.exploration(eid, "done"), iid):
            pipe = self.r.pipeline()
            pipe.hincrby(keys.exploration(eid), "runs", runs)
            pipe.hincrby(keys.exploration(eid), "pruned", pruned)
            for kind, n in tolerated.items():
                pipe.hincrby(keys.exploration(eid, "tolerated"), kind, int(n))
            pipe.execute()

    def exploration_progress(self, eid: str) -> dict:
        r = self.r
        return {"total": r.hlen(keys.exploration(eid, "items")), "done": r.scard(keys.exploration(eid, "done")),
                "cancelled": r.scard(keys.exploration(eid, "cancelled")),
                "failures": [json.loads(x) for x in r.lrange(keys.exploration(eid, "failures"), 0, -1)],
                "errors": list(r.lrange(keys.exploration(eid, "errors"), 0, -1)),
                "classes": r.scard(keys.exploration(eid, "classes")),
                "tolerated": {k: int(v) for k, v in r.hgetall(keys.exploration(eid, "tolerated")).items()}}
