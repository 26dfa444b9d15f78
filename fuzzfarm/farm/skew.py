"""Version skew never fails a job while a matching worker exists.

A worker whose copy of a job's harness has another source hash than the submitter's cannot run
the job (its verdicts would be about other code). It used to fail the job; in a fleet being
upgraded, that failed most jobs of a campaign whenever a stale worker took them. Now it hands
the slice back: it records its own hash for the campaign (``campaign:<cid>:skew``, worker ->
hash), waits a little (so the queue's other consumers, with luck a matching one, take the
message: ``FUZZFARM_SKEW_BACKOFF_S``, doubling, at most 30 s) and publishes the slice again.

Bounded: after ``FUZZFARM_SKEW_HANDBACKS`` (8) hand-backs of one job, when no worker with the
submitted hash has run any slice of the campaign, the job fails with one campaign-wide line:
``harness checker: no worker has hash 1a2b…; workers have 3c4d… (N of them)`` (the same text for
every job, so ``submit --wait`` and ``status`` print it once). When a matching worker has been
seen, the hand-backs go on up to ten times the bound (it may be busy, or restarting).
"""

from __future__ import annotations

import logging
import os
import socket
import time
from typing import Callable

from fuzzfarm.farm import store as S
from fuzzfarm.farm import config
from fuzzfarm import settings

log = logging.getLogger("fuzzfarm.farm")

HANDBACKS = settings.number("FUZZFARM_SKEW_HANDBACKS", 8, integer=True)
BACKOFF_S = settings.number("FUZZFARM_SKEW_BACKOFF_S", 2.0)
MAX_BACKOFF_S = 30.0


def seen(st: S.Store, cid: str, worker: str, local_hash: str) -> None:
    """Record which harness hash ``worker`` has (called by every worker that takes a slice)."""
    st.skew_seen(cid, worker or socket.gethostname(), local_hash)


def no_match_reason(st: S.Store, cid: str, harness: str, wanted: str) -> str:
    have = st.skew_hashes(cid)
    others: dict[str, int] = {}
    for h in have.values():
        if h != wanted:
            others[h] = others.get(h, 0) + 1
    listed = ", ".join(f"{h[:12]}… ({c} of them)" for h, c in sorted(others.items(), key=lambda x: (-x[1], x[0])))
    return (f"harness {harness}: no worker has hash {wanted[:12]}…; workers have {listed or 'none recorded'}; "
            f"install the submitter's fuzzfarm and harness version on the workers (or submit from theirs)")


def hand_back(st: S.Store, spec: dict, local_hash: str, *, worker: str, enqueue: Callable[[dict, float], None],
              sleep: Callable[[float], None] = time.sleep) -> str:
    """This worker cannot run ``spec``'s harness hash: publish the slice again for another worker,
    or fail the job when the bound is reached and no worker matches. Returns "handed back" or "failed"."""
    cid, n, k = spec["campaign"], int(spec["job"]), int(spec.get("slice", 0))
    wanted = spec["harness_hash"]
    count, hashes = st.skew_hand_back(cid, n, worker or socket.gethostname(), local_hash)
    matching = wanted in hashes
    if count > HANDBACKS * (10 if matching else 1):
        reason = no_match_reason(st, cid, spec["harness"], wanted) if not matching else (
            f"harness {spec['harness']}: handed back {count - 1} times by workers with another hash; "
            f"the workers with hash {wanted[:12]}… never took it")
        # one text for the whole campaign: the first job to give up sets it, the others reuse it
        reason = st.campaign_field_once(cid, "skew_error", reason)
        log.error("job %s/%s failed: %s", cid, n, reason)
        st.update_job(cid, n, state=S.JOB_FAILED, finished=time.time(), error=reason)
        return "failed"
    # (well inside the slice's soft time limit, which is longer than the margin)
    wait = min(MAX_BACKOFF_S, config.FUZZ_HARD_MARGIN_S / 2, BACKOFF_S * 2 ** (count - 1))
    log.warning("job %s/%s slice %s: harness %s here has source hash %s, the campaign's is %s; handing the "
                "slice back for another worker in %.1f s (%d of %d)", cid, n, k, spec["harness"], local_hash[:12],
                wanted[:12], wait, count, HANDBACKS)
    sleep(wait)
    job = st.job(cid, n)
    left = float(spec["duration_s"]) - float(job.get("elapsed_base", 0) or 0)
    enqueue(spec, max(1.0, min(left, config.MAX_SLICE_S)))
    return "handed back"


# ---- the collector side -----------------------------------------------------------------------
def collector_mismatch(harness: str, wanted: str) -> tuple[str, str] | None:
    """(this collector's hash, message) when its copy of ``harness`` is not the one with hash
    ``wanted`` (a triage here would judge other code and stamp the artifact with a hash it did not
    run); None when it matches or when there is nothing to compare."""
    from fuzzfarm import harness as H

    if not wanted:
        return None
    try:
        local = H.get(harness).source_hash()
    except H.HarnessError:
        return None  # the step itself reports a missing harness
    if local == wanted:
        return None
    return local, (f"waiting for a collector with harness {harness} hash {wanted[:12]}…: collector "
                   f"{socket.gethostname()} has {local[:12]}…")


# A triage message handed back this many times by mismatching collectors is not handed back again
# (with the backoff capped at 30 s, about 20 minutes of waiting): the crash is recorded as not
# triaged (input kept) or the bucket as failed (kept), with the reason, so the campaign settles.
COLLECTOR_HANDBACKS = settings.number("FUZZFARM_COLLECTOR_HANDBACKS", 40, integer=True, above=True)


def collector_gave_up(waiting: str, handbacks: int) -> str:
    """The one line recorded (and logged) when the bound is reached."""
    return (f"{waiting}; handed back {handbacks} times and no matching collector took it: start a collector with "
            f"the submitter's fuzzfarm and harness version (the input is kept; submit again to triage it)")


def collector_wait(attempt: int) -> float:
    """Seconds a mismatching collector holds a triage message before handing it back."""
    return min(MAX_BACKOFF_S, config.COLLECT_SOFT_LIMIT_S / 2, BACKOFF_S * 2 ** max(0, attempt - 1))
