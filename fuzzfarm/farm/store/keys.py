"""Every Redis key of fuzzfarm: one function per key, with its type and what it holds, and how
long each lives (``LIFETIME``: the list gc works from). Only fuzzfarm/farm/store/ uses them
(tests/farm/test_store_keys.py). Prefix ``fuzzfarm:``; bytes are stored base64, so every value is
text. Celery's Redis transport owns ``unacked`` and the queue lists: the janitor reads them
(:func:`celery_unacked`, :func:`celery_queue_lists`), fuzzfarm never writes them."""

from __future__ import annotations

P = "fuzzfarm:"

# One line a key, to be read as a table (hence the one-line defs).

# campaigns, their jobs and crash inputs
def campaigns() -> str: return P + "campaigns"  # zset: campaign id -> submit time
def campaign(cid: str) -> str: return P + f"campaign:{cid}"  # hash: the submitted spec (harness, variant, jobs, ...)
def campaign_crashes(cid: str) -> str: return P + f"campaign:{cid}:crashes"  # set: sha256 of each crash it reported
def campaign_intaken(cid: str) -> str: return P + f"campaign:{cid}:intaken"  # set: ... whose intake finished
def campaign_buckets(cid: str) -> str: return P + f"campaign:{cid}:buckets"  # zset: bucket hit -> when first
def campaign_crash_jobs(cid: str) -> str: return P + f"campaign:{cid}:crash_jobs"  # hash: sha256 -> job that reported it first
def campaign_series(cid: str) -> str: return P + f"campaign:{cid}:series"  # list: live stats points (bounded)
def campaign_skew(cid: str) -> str: return P + f"campaign:{cid}:skew"  # hash: worker -> its harness hash
def campaign_mix(cid: str) -> str: return P + f"campaign:{cid}:mix"  # hash: the mix portfolio's counts
def campaign_rechecks(cid: str) -> str: return P + f"campaign:{cid}:rechecks"  # zset: context records it waits for
def job(cid: str, n: int) -> str: return P + f"job:{cid}:{n}"  # hash: job state, attempts, error, live stats
def crash(harness: str, variant: str, sha: str) -> str: return P + f"crash:{harness}:{variant}:{sha}"  # hash: a reported input
def stopping(node: str, pid: int) -> str: return P + f"stopping:{node}:{pid}"  # string: warm shutdown (expires)

# buckets, their artifacts and groups
def sig(harness: str, variant: str, signature: str) -> str: return P + f"sig:{harness}:{variant}:{signature}"  # string: bucket id (Lua)
def buckets() -> str: return P + "buckets"  # zset: bucket id -> creation time
def bucket(bid: str) -> str: return P + f"bucket:{bid}"  # hash: the bucket record
def bucket_inputs(bid: str) -> str: return P + f"bucket:{bid}:inputs"  # set: sha256 of inputs counted
def bucket_contexts(bid: str) -> str: return P + f"bucket:{bid}:contexts"  # hash: campaign -> verdict context
def recheck(bid: str, ctx: str) -> str: return P + f"recheck:{bid}:{ctx}"  # string: its context record (SET NX)
def artifact(bid: str) -> str: return P + f"artifact:{bid}"  # hash: file -> base64, .sha256 map
def engine_signature_distrusted(harness: str, variant: str) -> str:  # string: input the engine misread
    return P + f"engine_signature:distrusted:{harness}:{variant}"
def groups_override() -> str: return P + "groups:override"  # hash: bucket -> the user's group
def groups_name() -> str: return P + "groups:name"  # hash: group -> its name

# corpora
def corpus(harness: str) -> str: return P + f"corpus:{harness}"  # hash: sha1 -> base64 input
def corpus_merged_size(harness: str) -> str: return P + f"corpus:{harness}:merged_size"  # string: size after the last prune
def corpus_merge_queued(harness: str) -> str: return P + f"corpus:{harness}:merge_queued"  # string: a merge is queued (expires)

# the farm's coordination (farm/lease.py, janitor.py, rescue.py, unacked.py)
def lease(name: str) -> str: return P + f"lease:{name}"  # string: holder of a slice, step or round claim (expires)
def leases() -> str: return P + "leases"  # zset: slice <cid>:<n>:<k> -> lease end
def deliveries(task_id: str) -> str: return P + f"deliveries:{task_id}"  # string: deliveries of a message (expires)
def orphans() -> str: return P + "orphans"  # hash: job/intake with no message -> first seen
def held() -> str: return P + "held"  # zset: delivery tag -> claim end
def unowned() -> str: return P + "unowned"  # hash: tag unacked, no claim -> first seen

# bounded exhaustive searches (farm/explore_jobs.py), the rights probe
def explorations() -> str: return P + "explore:ids"  # zset: exploration id -> creation
def exploration(eid: str, part: str = "") -> str:  # hash (+ :items, :done, ...): one search
    return P + f"explore:{eid}" + (f":{part}" if part else "")
def acl_probe(token: str) -> str: return P + f"aclcheck:{token}"  # string: the rights check's probe

# fix proofs shared by the buckets of one (group, scenario, fixed variant) (farm/triage.py proof_key);
# the search's claim is the lease ``proof:<key>``
def proof(key: str) -> str: return P + f"proof:{key}"  # string: a stored proof, JSON (expires)


def celery_unacked() -> str:
    return "unacked"  # kombu's Redis transport (Channel.unacked_key, its default)


def celery_queue_lists(queue: str) -> list[str]:
    """The Redis lists of ``queue``: kombu keeps one per priority step ("fuzz", "fuzz\\x06\\x163", ...)."""
    from kombu.transport.redis import PRIORITY_STEPS

    return [queue if pri == 0 else f"{queue}\x06\x16{pri}" for pri in PRIORITY_STEPS]


# How long each key lives: the single list gc works from (docs/RELIABILITY.md, "Redis growth").
LIFETIME = {
    # kept until deleted: what users download, replay and triage, and what later campaigns build on
    "kept": (sig, buckets, bucket, bucket_inputs, bucket_contexts, recheck, artifact, engine_signature_distrusted,
             groups_override, groups_name, corpus, corpus_merged_size, explorations, exploration),
    # belongs to one campaign and goes with it (gc, delete, the settled TTL); a crash record only
    # once it is filed into a bucket (store/retention.py)
    "campaign": (campaign, campaign_crashes, campaign_intaken, campaign_buckets, campaign_crash_jobs,
                 campaign_series, campaign_skew, campaign_mix, campaign_rechecks, job, crash),
    # bounded on their own: an expiry, or the janitor's sweep drops what no longer applies
    "bounded": (campaigns, stopping, corpus_merge_queued, lease, leases, deliveries, orphans, held, unowned,
                acl_probe, proof),
    # Celery's, read only
    "celery": (celery_unacked, celery_queue_lists),
}
NOT_KEYS: tuple[str, ...] = ("campaign_own",)


def campaign_own(cid: str, jobs: int) -> list[str]:
    """The keys of campaign ``cid`` that go with it whole (its crash records are decided one by one)."""
    return [f(cid) for f in LIFETIME["campaign"] if f not in (job, crash)] + [job(cid, n) for n in range(jobs)]
