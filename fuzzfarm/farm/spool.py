"""Crashes a worker could not write to Redis wait on its disk, then go in: no crash is lost to a
full Redis.

Redis with ``maxmemory`` and ``noeviction`` (the only policy that never drops farm state)
refuses every write once full: ``OOM command not allowed when used memory > 'maxmemory'``. A
fuzz slice that finds a crash then keeps it here (one JSON file per crash input, named by its
sha256, written atomically) and goes on fuzzing; its stats ticks are skipped while Redis refuses
them. Every stats tick, and every slice start, tries to report what is kept (``report_crash`` +
the intake enqueue, both idempotent by sha256) and removes a file once Redis took it. So once
memory is freed (``fuzzfarm gc``, ``fuzzfarm delete``, a larger ``maxmemory``) the crashes go in,
from this slice or the next one this machine runs. The directory is ``$FUZZFARM_SPOOL_DIR``
(default ``<tmp>/fuzzfarm-spool-<uid>-<farm>``, see :func:`directory`): a lost machine loses its
spool, a restarted worker keeps it.
"""

from __future__ import annotations

import base64
import functools
import glob
import json
import logging
import os
import tempfile

import redis

log = logging.getLogger("fuzzfarm.farm")

OOM = redis.exceptions.OutOfMemoryError


def directory() -> str:
    """``$FUZZFARM_SPOOL_DIR``, else a directory of this farm's own under the temp directory:
    named by its Redis (host, port, db; never the password), so a machine whose workers serve two
    farms never reports one farm's kept crashes into the other's Redis."""
    explicit = os.environ.get("FUZZFARM_SPOOL_DIR")
    if explicit:
        return explicit
    return os.path.join(tempfile.gettempdir(), f"fuzzfarm-spool-{os.getuid()}-{_farm_id()}")


@functools.lru_cache(maxsize=None)  # a worker serves one farm; its stats ticks ask every 2 s
def _farm_id() -> str:
    import hashlib
    import urllib.parse

    from fuzzfarm.farm import redis_url

    try:
        u = urllib.parse.urlsplit(redis_url.from_env())
        ident = f"{u.scheme}://{u.hostname}:{u.port}{u.path}"
    except Exception:  # noqa: BLE001 - no farm configured: one directory for "the default"
        ident = "default"
    return hashlib.sha1(ident.encode()).hexdigest()[:12]


def keep(cid: str, n: int, harness: str, variant: str, data: bytes, artifact: str, log_tail: str) -> str:
    import hashlib

    d = directory()
    os.makedirs(d, mode=0o700, exist_ok=True)
    sha = hashlib.sha256(data).hexdigest()
    rec = {"campaign": cid, "job": n, "harness": harness, "variant": variant, "artifact": artifact,
           "log_tail": log_tail, "data": base64.b64encode(data).decode()}
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
    with os.fdopen(fd, "w") as f:
        json.dump(rec, f)
    os.replace(tmp, os.path.join(d, f"{cid}-{sha}.json"))
    return sha


def waiting() -> list[str]:
    return sorted(glob.glob(os.path.join(directory(), "*.json")))


def flush(st, enqueue_intake) -> int:
    """Report every kept crash Redis now accepts; returns how many went in. Stops at the first
    refusal (Redis still full), keeping the rest."""
    done = 0
    for path in waiting():
        try:
            with open(path) as f:
                rec = json.load(f)
        except (OSError, ValueError):
            continue
        try:
            sha, new = st.report_crash(rec["campaign"], int(rec["job"]), rec["harness"], rec["variant"],
                                       base64.b64decode(rec["data"]), rec["artifact"], rec["log_tail"])
            if new:
                enqueue_intake(rec["campaign"], rec["harness"], rec["variant"], sha)
        except (redis.RedisError, OSError) as e:
            log.info("kept crashes: Redis still refuses them (%s); %d wait in %s", type(e).__name__,
                     len(waiting()), directory())
            return done
        os.remove(path)
        done += 1
        log.warning("crash %s of job %s/%s: kept locally while Redis was full, now reported", sha[:12],
                    rec["campaign"], rec["job"])
    return done
