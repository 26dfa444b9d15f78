"""The Redis user's rights, checked at a worker's start-up: what is missing, in one line.

Why: a managed or hardened Redis gives the farm a user of its own (Redis ACLs), often without
pub/sub channels (``acl-pubsub-default resetchannels``, the default since Redis 7) or with only
some key patterns. The farm then did not start, and the only explanation was at the bottom of a
Celery traceback (``NOPERM this user has no permissions to access one of the channels…``).

What: :func:`missing` tries, harmlessly, each kind of right the farm uses: fuzzfarm's own keys
(a probe key written and deleted), kombu's and Celery's keys (read: queue lists, bindings,
``unacked``, results), Lua scripts, the blocking pop workers wait in, and the pub/sub channels of
Celery's remote control and events (a subscribe and unsubscribe; nothing is published). Each one
that Redis refuses with NOPERM is named. :func:`line` makes the one sentence; docs/OPERATIONS.md
gives the ACL line that grants them (``ACL_RULES`` below).
"""

from __future__ import annotations

import os
import uuid

import redis

from fuzzfarm.farm.store import keys

# What the farm's user needs (docs/OPERATIONS.md, "Redis ACL"): the key patterns of fuzzfarm,
# kombu (queues ``fuzz``/``collect`` and their priority lists, ``_kombu.binding.*``, ``unacked*``)
# and Celery (results ``celery-task-meta-*``); pub/sub channels: all (kombu PSUBSCRIBEs literal
# channel names, and Redis matches a PSUBSCRIBE argument literally against the user's channel
# patterns, so ``&/0.*`` would not do); every command but the dangerous ones (kombu's Lua scripts
# also call TIME).
ACL_RULES = "~fuzzfarm:* ~fuzz* ~collect* ~_kombu.* ~unacked* ~celery* allchannels +@all -@dangerous"


def _db(r: redis.Redis) -> int:
    return int(r.connection_pool.connection_kwargs.get("db", 0) or 0)


def missing(r: redis.Redis) -> list[str]:
    """The rights Redis refuses this client (empty: all there). Connection errors propagate."""
    db, probe = _db(r), keys.acl_probe(f"{uuid.uuid4().hex[:8]}:{os.getpid()}")
    checks = [
        ("keys fuzzfarm:* (write)", lambda: (r.set(probe, "1", px=10_000), r.delete(probe))),
        ("keys fuzz*, collect* (the task queues)", lambda: (r.llen("fuzz"), r.llen("collect"))),
        ("keys _kombu.* (queue bindings)", lambda: r.scard("_kombu.binding.fuzz")),
        ("keys unacked, unacked_index (messages in flight)", lambda: (r.hlen("unacked"), r.zcard("unacked_index"))),
        ("keys celery* (task results)", lambda: r.exists("celery-task-meta-aclcheck")),
        ("command EVAL/EVALSHA (Lua scripts)", lambda: r.eval("return 1", 0)),
        ("command BRPOP (workers wait for tasks in it)", lambda: r.brpop([probe + ":q"], timeout=0.01)),
        ("command TIME (kombu's Lua scripts)", lambda: r.time()),
        ("command MULTI/EXEC", lambda: r.pipeline(transaction=True).get(probe).execute()),
        (f"pub/sub channels /{db}.* (Celery's remote control and events) and command PSUBSCRIBE",
         lambda: _subscribe(r, f"/{db}.celery.pidbox")),
    ]
    out = []
    for what, call in checks:
        try:
            call()
        except redis.exceptions.NoPermissionError:
            out.append(what)
        except redis.exceptions.ResponseError as e:
            if "NOPERM" in str(e) or "no permissions" in str(e):
                out.append(what)
            else:
                raise
    return out


def _subscribe(r: redis.Redis, channel: str) -> None:
    p = r.pubsub()
    try:
        p.psubscribe(channel)
        p.get_message(timeout=1.0)  # the reply (or the NOPERM error) to the subscription
        p.punsubscribe(channel)
    finally:
        p.close()


def line(user: str, gaps: list[str]) -> str:
    """The one sentence: who, what is missing, what to do."""
    return (f"the Redis user {user or 'default'} lacks rights the farm needs: {'; '.join(gaps)}; grant them with "
            f"ACL SETUSER {user or 'default'} {ACL_RULES} (docs/OPERATIONS.md, \"Redis ACL\")")


def user_of(url: str) -> str:
    from urllib.parse import urlsplit
    return urlsplit(url).username or "default"
