"""Messages stranded in kombu's ``unacked`` hash go back on their queue within a few lease periods.

Why: kombu's Redis transport records every delivered message in the hash ``unacked`` (and its
delivery time in the sorted set ``unacked_index``) until it is acknowledged. When a worker's
connection drops, kombu puts the messages its channel held back on their queue: a write, which
fails while Redis is away (a restart, a failover). When a worker dies with its box, nothing tries.
Either way the message stays in ``unacked``, delivered to no worker, and only kombu's visibility
timeout (840 s by default) restores it. Measured before this module: Redis restarted 3 times
within 3.4 s during a campaign's triage; a ``fuzzfarm.minimize`` message sat there for the whole
visibility timeout, and the campaign settled 868 s after the restarts (docs/RELIABILITY.md).

What: every message a worker holds has an owner that proves it is alive, as a fuzz slice's lease
does (:mod:`.lease`):

* **Held.** Each worker's janitor thread (main process) renews, every round, one member per
  delivery tag it holds (reserved, running or scheduled in Celery's own bookkeeping,
  ``celery.worker.state``) in the sorted set ``fuzzfarm:held``, scored with the time the claim
  ends (``FUZZFARM_LEASE_TTL_S`` ahead). A worker that died, froze or lost the message on a
  reconnect stops renewing it.
* **Restore.** One janitor of the fleet per round (the rescue round's lock) looks at
  ``unacked``: a delivery tag with no live ``held`` claim is noted in ``fuzzfarm:unowned`` with the
  time it was first seen so; seen so continuously for ``UNOWNED_S`` (two lease periods), it is put
  back on its queue, at the front, by kombu's own atomic restore (``QoS.restore_by_tag``: a
  transaction watching ``unacked``, so of two janitors only one restores it), with one log line.
  A renewal in between clears the note, so a worker that was only cut off from Redis for a while
  keeps its messages.

Safe against doubling: the restored copy is a duplicate delivery of a message that may already
have had its effect (its ack lost with the connection) or may still run on a box that is only
frozen. Every task's effects are exactly-once already (slice claim and job state, intake by input
hash, triage by bucket state under a per-delivery claim: docs/RELIABILITY.md, "duplicate
delivery"). The visibility timeout stays the last resort (a fleet without janitors).
"""

from __future__ import annotations

import logging
import time

from fuzzfarm.farm import store as S
from fuzzfarm.farm import lease

log = logging.getLogger("fuzzfarm.unacked")



def unowned_s() -> float:
    """How long a message must have no live owner before it is restored: two lease periods."""
    return 2 * lease.LEASE_TTL_S


def held_tags() -> list[str]:
    """Delivery tags of the messages this worker process holds (Celery's main-process state)."""
    from celery.worker import state

    for _ in range(5):  # the sets are weak sets the consumer changes while we copy them
        try:
            reqs = [*state.reserved_requests, *state.active_requests, *state.scheduled_requests]
            break
        except RuntimeError:
            continue
    else:
        return []
    tags = []
    for r in reqs:
        try:
            tag = r.message.delivery_tag
        except AttributeError:
            continue
        if tag:
            tags.append(str(tag))
    return tags


def renew(st: S.Store, tags: list[str], now: float | None = None) -> None:
    """Claim ``tags`` for another lease period; drop claims that ended long ago (housekeeping)."""
    now = time.time() if now is None else now
    st.renew_held(tags, now + lease.LEASE_TTL_S, 10 * lease.LEASE_TTL_S, now)


def describe(raw: str | None) -> str:
    """``fuzzfarm.minimize [task id]`` of one ``unacked`` entry, for the log line."""
    import json

    try:
        msg = json.loads(raw or "")[0]
        return f"{msg['headers']['task']} [{msg['headers']['id']}]"
    except (ValueError, KeyError, TypeError, IndexError):
        return "a message"


def sweep(st: S.Store, restore, now: float | None = None) -> list[str]:
    """One round: restore (``restore(tag)``) every message with no live owner for ``unowned_s()``.
    Returns the tags restored."""
    now = time.time() if now is None else now
    tags = st.unacked_tags()
    seen = st.marks("unowned")
    if not tags:
        if seen:
            st.clear_marks("unowned")
        return []
    ends = st.held_until(tags)
    owned = {t for t, end in zip(tags, ends) if end is not None and float(end) > now}
    gone = [t for t in seen if t not in tags or t in owned]
    st.unmark("unowned", *gone)
    done = []
    for t in tags:
        if t in owned:
            continue
        first = float(seen.get(t, 0) or 0)
        if not first:
            st.mark("unowned", t, now, expire_s=10 * unowned_s())  # a fleet whose janitors all stopped leaves nothing
            continue
        if now - first < unowned_s():
            continue
        what = describe(st.unacked_message(t))
        restore(t)
        st.unmark("unowned", t)
        st.drop_held(t)
        log.warning("unacked: %s had no live worker for %.0f s (its worker died, froze, or lost it when its "
                    "connection to Redis dropped); put back on its queue", what, now - first)
        done.append(t)
    return done


def restore_with(app):
    """``restore(tag)`` for :func:`sweep`: kombu's own restore, on a connection of its own."""
    def restore(tag: str) -> None:
        with app.connection_for_write() as conn:
            conn.default_channel.qos.restore_by_tag(tag)
    return restore
