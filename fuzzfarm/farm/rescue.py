"""Messages lost on the wire: a job (or a crash intake) whose task message is nowhere gets it back.

Why: kombu's Redis transport takes a message with ``BRPOP`` (the pop is the delivery) and writes
it into its ``unacked`` set only once the reply has reached the worker. If the reply never
arrives (a half-open connection: the socket black-holed by a middlebox, a NAT that lost its
state; or a worker that dies between the pop and the write), the message is gone: not in the
queue, not in ``unacked``, so neither the visibility timeout nor a lease (the slice never started)
brings it back. Measured: after a 5 s black hole of an idle worker's sockets, the next job's
message was popped by the BRPOP in flight and the job stayed ``queued`` forever
(docs/RELIABILITY.md, "half-open connections").

What: one janitor of the fleet (the lease janitor's thread, :mod:`.lease`) looks every round for
jobs that should have a message and have none: state ``queued`` or ``running``, no live slice
lease, no slice claim, and no ``fuzz_job`` message for that job in the fuzz queue or in
``unacked``; and for crashes whose intake has not finished and whose ``intake`` message is nowhere.
Seen so twice, at least ``FUZZFARM_ORPHAN_GRACE_S`` (10 s) apart (a message between the pop and
``unacked`` is there again within milliseconds), the message is published again, with one log line.

Safe against doubling: a second message for a slice is refused by the slice claim and the job's
state (:func:`.jobs.run_slice`), an intake is idempotent by input hash (docs/RELIABILITY.md,
"duplicate delivery"). Cost: one read of the queues' messages per round while some campaign is
unsettled; nothing when the farm is idle.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import time

from fuzzfarm.farm import store as S
from fuzzfarm.farm import config
from fuzzfarm import settings

log = logging.getLogger("fuzzfarm.rescue")

GRACE_S = settings.number("FUZZFARM_ORPHAN_GRACE_S", 10.0)
SEEN = "orphans"  # Store marks: "job:<cid>:<n>:<k>" / "intake:<cid>:<sha>" -> when first seen without a message


def _task_args(raw: str) -> tuple[str, list] | None:
    """(task name, args) of one kombu message as stored in a queue list or in ``unacked``."""
    try:
        msg = json.loads(raw)
        if isinstance(msg, list):  # unacked: [message, exchange, routing key]
            msg = msg[0]
        name = (msg.get("headers") or {}).get("task", "")
        body = msg["body"]
        if (msg.get("properties") or {}).get("body_encoding") == "base64":
            body = base64.b64decode(body)
        args = json.loads(body)[0]
        return name, list(args)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None


TRIAGE_TASKS = (config.TASK_INTAKE, config.TASK_MINIMIZE, config.TASK_VERIFY, config.TASK_FIX_CHECK, config.TASK_PROVE)


def triage_in_flight(st: S.Store) -> int:
    """Triage task messages (intake, minimize, verify, fix check, prove) queued or unacked
    (running, or held by a worker until their countdown) anywhere on the farm."""
    n = 0
    for raw in st.queued_messages((config.COLLECT_QUEUE,)):
        got = _task_args(raw)
        n += bool(got and got[0] in TRIAGE_TASKS)
    return n


def in_flight(st: S.Store) -> tuple[set, set]:
    """({(cid, n)} of fuzz slices, {(cid, sha)} of intakes) with a message queued or unacked."""
    raws = st.queued_messages(config.QUEUES)
    jobs, intakes = set(), set()
    for raw in raws:
        got = _task_args(raw)
        if not got:
            continue
        name, args = got
        if name == config.TASK_FUZZ and args and isinstance(args[0], dict):
            jobs.add((args[0].get("campaign"), int(args[0].get("job", -1))))
        elif name == config.TASK_INTAKE and len(args) == 4:
            intakes.add((args[0], args[3]))
    return jobs, intakes


def orphans(st: S.Store) -> tuple[list[tuple[str, int, int]], list[tuple[str, str]]]:
    """Jobs (cid, n, slice) and intakes (cid, sha) that should have a message and have none now."""
    from fuzzfarm.farm import lease

    cids = st.campaign_ids()
    open_ = [c for c, mark in zip(cids, st.settled_marks(cids)) if not mark]
    want_jobs, want_intakes = [], []
    for cid in open_:
        for n, job in enumerate(st.jobs(cid)):
            if job.get("state") in (S.JOB_QUEUED, S.JOB_RUNNING):
                want_jobs.append((cid, n, int(job.get("slice", 0) or 0)))
        want_intakes += [(cid, sha) for sha in st.pending_intakes(cid)]
    if not want_jobs and not want_intakes:
        return [], []
    held = st.slices_held([(cid, lease.member(cid, n, k), lease.claim_name(cid, n, k)) for cid, n, k in want_jobs])
    jobs_msg, intakes_msg = in_flight(st)
    lost_jobs = [(cid, n, k) for (cid, n, k), h in zip(want_jobs, held) if not h and (cid, n) not in jobs_msg]
    lost_intakes = [w for w in want_intakes if w not in intakes_msg]
    return lost_jobs, lost_intakes


def sweep(st: S.Store, *, enqueue_fuzz, enqueue_intake, now: float | None = None) -> list[str]:
    """One round: publish again what was seen without a message twice, ``GRACE_S`` apart.
    Returns what was republished (``job:…`` / ``intake:…`` names)."""
    from fuzzfarm.farm import jobs

    now = time.time() if now is None else now
    lost_jobs, lost_intakes = orphans(st)
    names = {f"job:{cid}:{n}:{k}": ("job", cid, n, k) for cid, n, k in lost_jobs}
    names.update({f"intake:{cid}:{sha}": ("intake", cid, sha) for cid, sha in lost_intakes})
    seen = st.marks(SEEN)
    st.unmark(SEEN, *[k for k in seen if k not in names])
    done = []
    for name, what in names.items():
        first = float(seen.get(name, 0) or 0)
        if not first:
            st.mark(SEEN, name, now)
            continue
        if now - first < GRACE_S:
            continue
        if what[0] == "job":
            _, cid, n, k = what
            camp, job = st.campaign(cid), st.job(cid, n)
            if not camp or job.get("state") not in (S.JOB_QUEUED, S.JOB_RUNNING):
                continue
            left = float(camp["duration_s"]) - float(job.get("elapsed_base", 0) or 0)
            enqueue_fuzz({**jobs.job_spec(cid, n, camp), "slice": k}, max(1.0, min(left, config.MAX_SLICE_S)))
            log.warning("rescue: job %s/%s slice %s had no task message anywhere for %.0f s (lost on the wire: a "
                        "half-open connection or a worker gone mid-delivery); published it again", cid, n, k,
                        now - first)
        else:
            _, cid, sha = what
            crash_camp = st.campaign(cid)
            if not crash_camp:
                continue
            enqueue_intake(cid, crash_camp["harness"], crash_camp["variant"], sha)
            log.warning("rescue: the intake of crash %s (campaign %s) had no task message anywhere for %.0f s; "
                        "published it again", sha[:12], cid, now - first)
        st.unmark(SEEN, name)
        done.append(name)
    return done
