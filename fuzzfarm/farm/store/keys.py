"""Every Redis key of fuzzfarm: one function per key, and how long each one lives (``LIFETIME``).

Only fuzzfarm/farm/store/ uses these (tests/farm/test_store_keys.py keeps it so). Prefix
``fuzzfarm:``; bytes are stored base64, so every value is text.

=========================================  ======  ============================================
key                                        type    holds
=========================================  ======  ============================================
``campaigns``                              zset    campaign id -> submit time
``campaign:<cid>``                         hash    the submitted spec (harness, variant, jobs, ...)
``campaign:<cid>:crashes``                 set     sha256 of every crash input the campaign reported
``campaign:<cid>:intaken``                 set     ... of those whose intake has finished
``campaign:<cid>:buckets``                 zset    bucket ids the campaign hit -> when it first did
``campaign:<cid>:crash_jobs``              hash    sha256 -> the job that reported it first
``campaign:<cid>:series``                  list    JSON points of the jobs' live stats (bounded)
``campaign:<cid>:skew``                    hash    worker -> the harness hash it has (farm/skew.py)
``campaign:<cid>:mix``                     hash    the ``mix`` portfolio's counts (farm/portfolio.py)
``campaign:<cid>:rechecks``                zset    context records whose triage settles it
``job:<cid>:<n>``                          hash    job state, attempts, error, live stats
``crash:<harness>:<variant>:<sha256>``     hash    a reported crash input (kept before intake)
``stopping:<node>:<pid>``                  string  a worker in warm shutdown (expires)
``sig:<harness>:<variant>:<signature>``    string  bucket id (created atomically, Lua)
``buckets``                                zset    bucket id -> creation time
``bucket:<bid>``                           hash    bucket record (kind, state, count, sizes, ...)
``bucket:<bid>:inputs``                    set     sha256 of inputs counted in the bucket
``bucket:<bid>:contexts``                  hash    campaign id -> the verdict context it joined under
``recheck:<bid>:<context>``                string  the context record triaging it (SET NX)
``artifact:<bid>``                         hash    file name -> base64 bytes, plus ``.sha256`` map
``engine_signature:distrusted:<h>:<v>``    string  an input whose engine signature was wrong
``groups:override`` / ``groups:name``      hash    bucket -> user's group / group -> its name
``corpus:<harness>``                       hash    sha1 -> base64 input (shared by campaigns)
``corpus:<harness>:merged_size``           string  corpus size after the last -merge=1 prune
``corpus:<harness>:merge_queued``          string  a corpus merge is queued (expires)
``lease:<name>``                           string  who holds a claim: a slice, a triage step,
                                                   a fleet-wide sweep round (expires)
``leases``                                 zset    running slice ``<cid>:<n>:<k>`` -> lease end
``deliveries:<task id>``                   string  how often a task message was delivered
``orphans``                                hash    a job/intake with no message -> first seen
``held`` / ``unowned``                     zset /  delivery tag -> when its holder's claim ends /
                                           hash    when first seen unacked with no live claim
``explore:ids`` / ``explore:<eid>[:part]`` ...     a bounded exhaustive search (farm/explore_jobs.py)
``aclcheck:<token>``                       string  a probe written and deleted by ``fuzzfarm up``
=========================================  ======  ============================================

Celery's Redis transport owns ``unacked`` and the queue lists; the janitor reads them
(:func:`celery_unacked`, :func:`celery_queue_lists`), fuzzfarm never writes them.
"""

from __future__ import annotations

P = "fuzzfarm:"


def campaigns() -> str:
    return P + "campaigns"


def campaign(cid: str) -> str:
    return P + f"campaign:{cid}"


def campaign_crashes(cid: str) -> str:
    return P + f"campaign:{cid}:crashes"


def campaign_intaken(cid: str) -> str:
    return P + f"campaign:{cid}:intaken"


def campaign_buckets(cid: str) -> str:
    return P + f"campaign:{cid}:buckets"


def campaign_crash_jobs(cid: str) -> str:
    return P + f"campaign:{cid}:crash_jobs"


def campaign_series(cid: str) -> str:
    return P + f"campaign:{cid}:series"


def campaign_skew(cid: str) -> str:
    return P + f"campaign:{cid}:skew"


def campaign_mix(cid: str) -> str:
    return P + f"campaign:{cid}:mix"


def campaign_rechecks(cid: str) -> str:
    return P + f"campaign:{cid}:rechecks"


def job(cid: str, n: int) -> str:
    return P + f"job:{cid}:{n}"


def crash(harness: str, variant: str, sha: str) -> str:
    return P + f"crash:{harness}:{variant}:{sha}"


def stopping(node: str, pid: int) -> str:
    return P + f"stopping:{node}:{pid}"


def sig(harness: str, variant: str, signature: str) -> str:
    return P + f"sig:{harness}:{variant}:{signature}"


def buckets() -> str:
    return P + "buckets"


def bucket(bid: str) -> str:
    return P + f"bucket:{bid}"


def bucket_inputs(bid: str) -> str:
    return P + f"bucket:{bid}:inputs"


def bucket_contexts(bid: str) -> str:
    return P + f"bucket:{bid}:contexts"


def recheck(bid: str, ctx: str) -> str:
    return P + f"recheck:{bid}:{ctx}"


def artifact(bid: str) -> str:
    return P + f"artifact:{bid}"


def engine_signature_distrusted(harness: str, variant: str) -> str:
    return P + f"engine_signature:distrusted:{harness}:{variant}"


def groups_override() -> str:
    return P + "groups:override"


def groups_name() -> str:
    return P + "groups:name"


def corpus(harness: str) -> str:
    return P + f"corpus:{harness}"


def corpus_merged_size(harness: str) -> str:
    return P + f"corpus:{harness}:merged_size"


def corpus_merge_queued(harness: str) -> str:
    return P + f"corpus:{harness}:merge_queued"


def lease(name: str) -> str:
    return P + f"lease:{name}"


def leases() -> str:
    return P + "leases"


def deliveries(task_id: str) -> str:
    return P + f"deliveries:{task_id}"


def orphans() -> str:
    return P + "orphans"


def held() -> str:
    return P + "held"


def unowned() -> str:
    return P + "unowned"


def explorations() -> str:
    return P + "explore:ids"


def exploration(eid: str, part: str = "") -> str:
    return P + f"explore:{eid}" + (f":{part}" if part else "")


def acl_probe(token: str) -> str:
    return P + f"aclcheck:{token}"


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
                acl_probe),
    # Celery's, read only
    "celery": (celery_unacked, celery_queue_lists),
}
NOT_KEYS: tuple[str, ...] = ("campaign_own",)


def campaign_own(cid: str, jobs: int) -> list[str]:
    """The keys of campaign ``cid`` that go with it whole (its crash records are decided one by one)."""
    return [f(cid) for f in LIFETIME["campaign"] if f not in (job, crash)] + [job(cid, n) for n in range(jobs)]
