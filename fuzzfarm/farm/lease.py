"""Job leases: a running fuzz slice proves it is alive; the janitor (farm/janitor.py) requeues slices whose box is gone.

Without this a slice on a machine that vanished (SIGKILL of the whole worker, a preempted box, a
frozen VM) comes back only after Redis's visibility timeout (840 s by default), and ``status``
shows it ``running`` on the dead worker all along (docs/RELIABILITY.md).

* **Lease.** A running slice is a member ``<cid>:<n>:<k>`` of the sorted set ``fuzzfarm:leases``
  whose score is the time its lease ends. The process doing the work renews it at each stats tick
  (every 2 s, ``STATS_INTERVAL_S``) for ``FUZZFARM_LEASE_TTL_S`` (20 s). The renewal is one Lua script that
  also writes the tick's stats into the job: it replaces the HSET that was there, so a tick costs
  no extra Redis command. The script writes only while the slice's claim
  (``lease:slice:<cid>:<n>:<k>``, held by the delivery: task id, host and pid, see
  :func:`delivery_owner`) is still this delivery's:
  a worker that comes back after its slice was handed to another (a frozen box thawed, a healed
  partition) finds the claim gone, writes nothing, stops its fuzzer and drops the slice
  (:class:`LeaseLost`). So the job's counts never include the abandoned slice.
* **Janitor** (:mod:`.janitor`). Every worker's main process runs a thread (started on ``worker_ready``, like the
  watchdog) that every ``FUZZFARM_JANITOR_INTERVAL_S`` (5 s) looks for leases that ended. Taking
  one over is atomic (Lua): the lease is removed, the claim deleted, the job marked
  ``queued`` with ``recovery = lost → requeued`` (``lost`` counts how often), its live stats of
  the lost slice zeroed; then the janitor enqueues the slice again as a new message. Any number
  of janitors may run: only one takes a given lease. A job lost more than
  ``FUZZFARM_MAX_DELIVERIES`` times (3) is failed with that cause, like a poison pill.

The visibility timeout stays the backstop (a janitor-less fleet, Redis down at takeover time):
the original message, restored after it, takes the claim again if nobody holds it.
"""

from __future__ import annotations

import logging
import os
import socket
import time

from fuzzfarm import settings
from fuzzfarm.farm import store as S

log = logging.getLogger("fuzzfarm.lease")

LEASE_TTL_S = settings.number("FUZZFARM_LEASE_TTL_S", 20.0, above=True)
# a slice's stats tick renews its lease (farm/jobs.py): several ticks per lease period
STATS_INTERVAL_S = settings.number("FUZZFARM_STATS_INTERVAL_S", 0.0) or min(2.0, LEASE_TTL_S / 4)
RECOVERY = "lost → requeued"


class LeaseLost(Exception):
    """Raised from a slice's stats callback when its claim was taken over: the engine kills the
    fuzzer and the slice ends without recording anything."""


def member(cid: str, n: int, k: int) -> str:
    return f"{cid}:{n}:{k}"


def claim_name(cid: str, n: int, k: int) -> str:
    """The slice claim's lease name (``Store.acquire_lease``)."""
    return f"slice:{cid}:{n}:{k}"


def delivery_owner(task_id: str) -> str:
    """Who holds a slice claim: the task id, the host and the pid running it. The task id alone is
    not enough: when a worker's broker connection drops, Celery restores its unacknowledged
    messages, and the copy (same task id) is delivered while the first copy still runs."""
    return f"{task_id} {socket.gethostname()} {os.getpid()}" if task_id else ""


def owner_task(owner: str) -> str:
    """The task id part of :func:`delivery_owner`'s string."""
    return owner.split(" ", 1)[0]


def process_gone(pid: int) -> bool:
    """Whether process ``pid`` of this host has ended (a zombie not reaped yet counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:  # a killed pool process not reaped yet is a zombie
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def take_from_dead_delivery(st: S.Store, claim: str, owner: str, *, same_message: bool = True) -> bool:
    """True when ``owner`` now holds ``claim`` because its holder was an earlier delivery of the
    same message on this host whose process is gone (a pool process killed mid-slice: Celery
    redelivers at once, and waiting for the lease to end would only delay the job). A live holder,
    or one on another host (alive or not, this host cannot tell: its lease tells the janitor),
    keeps the claim: the copy is a duplicate. ``same_message=False``: a holder of any message on
    this host whose process is gone (a claim several messages compete for: a proof's, farm/triage.py)."""
    holder = st.lease_holder(claim)
    parts, mine = (holder or "").split(" "), owner.split(" ")
    same = parts[:2] == mine[:2] if same_message else parts[1:2] == mine[1:2]
    if len(parts) != 3 or len(mine) != 3 or not same or not parts[2].isdigit():
        return False
    if not process_gone(int(parts[2])):
        return False
    return st.take_lease_from(claim, holder, owner)


def hold(st: S.Store, cid: str, n: int, k: int, owner: str, fields: dict, *, ttl_s: float | None = LEASE_TTL_S,
         now: float | None = None) -> bool:
    """Write ``fields`` into job ``n`` and renew (or, ``ttl_s=None``, drop) the slice's lease,
    only while ``owner`` holds the slice claim. False: the slice was taken over; nothing written."""
    now = time.time() if now is None else now
    return st.hold_slice(claim_name(cid, n, k), member(cid, n, k), cid, n, owner,
                         None if ttl_s is None else now + ttl_s, {**fields, "updated": now})


def tick(st: S.Store, cid: str, n: int, k: int, owner: str, stats: dict) -> bool:
    """A slice's stats tick (``Store.job_stats`` with the lease): False when the lease was lost."""
    if not hold(st, cid, n, k, owner, {f: stats[f] for f in S.STAT_FIELDS if f in stats}):
        return False
    st.record_series(cid, n, stats)
    return True


def expired(st: S.Store, now: float | None = None, limit: int = 20) -> list[str]:
    now = time.time() if now is None else now
    return st.ended_leases(now, limit)


def take_over(st: S.Store, m: str, now: float | None = None) -> int:
    """Take the ended lease ``m`` (atomic; see the module doc). Times the job was lost, or <= 0."""
    now = time.time() if now is None else now
    cid, n, k = m.rsplit(":", 2)
    return st.take_over_lease(m, claim_name(cid, int(n), int(k)), cid, int(n), now, RECOVERY)


def taken_over(st: S.Store, spec: dict, task_id: str) -> bool:
    """True when the slice ``spec`` that task ``task_id`` was running is no longer its own: its
    lease ended and a janitor handed the slice to another message (a frozen box thawed, a healed
    partition). Whatever then happens to the old task (its hard time limit, a revoke) is not the
    job's fate: the job runs elsewhere."""
    if not task_id:
        return False
    cid, n, k = spec["campaign"], int(spec["job"]), int(spec.get("slice", 0))
    holder = st.lease_holder(claim_name(cid, n, k))
    if holder is not None:
        return owner_task(holder) != task_id
    job = st.job(cid, n)
    return owner_task(job.get("lost_owner") or "") == task_id


def missed_heartbeat_s() -> float:
    """A running slice whose last stats tick is older than this has missed its heartbeats: three
    ticks (``STATS_INTERVAL_S``), at least 5 s."""
    return max(5.0, 3 * STATS_INTERVAL_S)


def state_label(job: dict, now: float | None = None) -> str:
    """What ``status`` shows in a job's state column. A running job whose worker stopped ticking
    (its box lost, frozen or cut off: the lease window before the janitor takes it over) says so,
    ``running on fuzzA@vm — no heartbeat for 12 s``, so its frozen counters are not read as live."""
    state = job.get("state", S.JOB_QUEUED)
    if state == S.JOB_QUEUED and job.get("recovery"):
        return f"{job['recovery']} (was on {job.get('lost_worker') or '?'})"
    if state == S.JOB_RUNNING and job.get("updated"):
        silent = (time.time() if now is None else now) - float(job["updated"])
        if silent > missed_heartbeat_s():
            return f"running on {job.get('worker') or '?'} — no heartbeat for {silent:.0f} s"
    return state
