"""A worker that cannot write its work directory hands the slice back instead of failing the job.

Why: a fuzz slice writes its corpus copy, the fuzzer's inputs and artifacts under the worker's
temporary directory. With that disk full (or read-only, or over quota) the fuzzer died at once
(``the walk-mix walk for harness 'checker' exited with code 1: (no output)``), the job was failed for
good, and the warning blamed the harness. The fault is the worker's, not the job's: the same shape
as version skew (farm/skew.py) before its hand-back.

What: before a slice starts (and when a slice's fuzzer ran nothing), the worker writes a probe of
``PROBE_BYTES`` (the largest input the farm keeps, 1 MiB) into its temporary directory.
When that fails with a local-resource errno (ENOSPC, EDQUOT, EROFS, EACCES), it logs one line naming
the path and the errno, keeps the slice's process busy while the disk stays unwritable (at most
``MAX_WAIT_S`` per message, well inside the slice's time limit: meanwhile this pool process takes no
other job) and publishes the slice again for another worker. After ``HANDBACKS`` (20) hand-backs of
one job in a row (a slice run to its end by any worker starts the count anew) the job fails with that
line: no worker could run it.
"""

from __future__ import annotations

import errno
import logging
import os
import socket
import tempfile
import time
from typing import Callable

from fuzzfarm import settings
from fuzzfarm.farm import store as S
from fuzzfarm.farm import config

log = logging.getLogger("fuzzfarm.farm")

PROBE_BYTES = 1 << 20
LOCAL_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES)
HANDBACKS = settings.number("FUZZFARM_DISK_HANDBACKS", 20, integer=True, above=True)
MAX_WAIT_S = 30.0


def cannot_write(path: str | None = None) -> tuple[str, OSError] | None:
    """(path, error) when ``path`` (default: the temporary directory) cannot take a probe write."""
    path = path or tempfile.gettempdir()
    name = None
    try:
        fd, name = tempfile.mkstemp(prefix=".fuzzfarm-probe-", dir=path)
        with os.fdopen(fd, "wb") as f:
            f.write(b"\0" * PROBE_BYTES)
            f.flush()  # no fsync: a full filesystem refuses the write itself (block reservation), and a
            # sync per slice would cost a loaded disk seconds
    except OSError as e:
        if e.errno in LOCAL_ERRNOS:
            return path, e
        raise
    finally:
        if name:
            try:
                os.unlink(name)
            except OSError:
                pass
    return None


def line(worker: str, path: str, e: OSError) -> str:
    """The one sentence: worker, path, errno."""
    code = errno.errorcode.get(e.errno or 0, str(e.errno))
    return (f"worker {worker or socket.gethostname()} cannot write its work directory {path}: "
            f"{(e.strerror or str(e)).lower()} ({code}); free space there (or point TMPDIR elsewhere)")


def hand_back(st: S.Store, spec: dict, bad: tuple[str, OSError], *, worker: str,
              enqueue: Callable[[dict, float], None], sleep: Callable[[float], None] = time.sleep) -> str:
    """Publish ``spec``'s slice again for another worker (after holding it while the disk stays
    unwritable), or fail the job after ``HANDBACKS``. Returns "handed back" or "failed"."""
    cid, n, k = spec["campaign"], int(spec["job"]), int(spec.get("slice", 0))
    why = line(worker, *bad)
    count = st.count_on("job", (cid, n), "disk_handbacks")
    if count > HANDBACKS:
        reason = f"no worker could run it: {why} (handed back {count - 1} times)"
        log.error("job %s/%s failed: %s", cid, n, reason)
        st.update_job(cid, n, state=S.JOB_FAILED, finished=time.time(), error=reason)
        return "failed"
    log.warning("job %s/%s slice %s: %s; handing the slice back for another worker (%d of %d)", cid, n, k, why,
                count, HANDBACKS)
    # this pool process takes no other job while its disk stays full (bounded, inside the time limit)
    limit = time.monotonic() + min(MAX_WAIT_S, config.FUZZ_HARD_MARGIN_S / 2)
    while time.monotonic() < limit and cannot_write(bad[0]):
        sleep(1.0)
    job = st.job(cid, n)
    left = float(spec["duration_s"]) - float(job.get("elapsed_base", 0) or 0)
    enqueue(spec, max(1.0, min(left, config.MAX_SLICE_S)))
    return "handed back"
