"""Fix-check work started ahead of its step, so that it runs beside the verify replays.

Once a bucket is minimized, two pieces of its fix check depend only on the minimized
reproducer: the fix evidence of a reproducer that is not flaky (``collector.fix_verify`` with
``buggy_ok == buggy_n``), and the reproducer's traced replay for the final artifact. The verify
step starts them in this process's thread pool (each is a child process, so threads are enough)
and the fix_check step takes their results here when it runs in the same process. The proof is
not started here: it is the prove step's own (farm/tasks.py, a proof slot of the collect worker),
which runs in whichever process has a slot free. Nothing here is stored: only
the steps write, under their leases, so a process that dies, a step run in another process, or a
flaky reproducer (whose fix evidence depends on the buggy rate) just computes the result again in
the step itself.

A caller that starts a ``proof`` job here (``PROOF_JOB``) gets a pool of its own, one at a time,
so proofs never take the threads the next bucket's fix evidence needs.

The verify replays themselves stay ten fresh processes (``collector.verify``), whatever runs
beside them (docs/VERDICTS.md, "How the replays stay fresh").
"""

from __future__ import annotations

import collections
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable

# A pool process holds the work of at most this many buckets (oldest dropped): a bucket whose
# fix check ran in another process would otherwise stay here for good.
KEEP = 8
WORKERS = 3
# FUZZFARM_TRIAGE_AHEAD=0: nothing is started ahead and the fix check runs its pieces one after
# the other, as before this module (benchmarks/triage_pipeline.py compares the two).
ENABLED = os.environ.get("FUZZFARM_TRIAGE_AHEAD", "1") != "0"

PROOF_JOB = "proof"

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_proof_pool: ThreadPoolExecutor | None = None
_ahead: "collections.OrderedDict[tuple, dict[str, Future]]" = collections.OrderedDict()


def _executor() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="fuzzfarm-triage-ahead")
    return _pool


def _proof_executor() -> ThreadPoolExecutor:
    global _proof_pool
    if _proof_pool is None:
        _proof_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fuzzfarm-triage-proof")
    return _proof_pool


def start(key: tuple, jobs: dict[str, Callable[[], object]]) -> dict[str, Future]:
    """Run ``jobs`` (name -> callable) in the background under ``key``; a key already started
    keeps its first futures (a redelivered verify message starts nothing twice)."""
    if not ENABLED:
        return {}
    with _lock:
        if key in _ahead:
            return _ahead[key]
        futs = {name: (_proof_executor() if name == PROOF_JOB else _executor()).submit(fn)
                for name, fn in jobs.items()}
        _put(key, futs)
        return futs


def _put(key: tuple, futs: dict[str, Future]) -> None:
    _ahead[key] = futs
    while len(_ahead) > KEEP:
        _ahead.popitem(last=False)


def keep(key: tuple, futs: dict[str, Future]) -> None:
    """Put ``futs`` back under ``key`` for a later step of the same bucket in this process (what
    ``take`` gave the fix_check step and it did not use: the proof)."""
    if not ENABLED or not futs:
        return
    with _lock:
        _put(key, futs)


def take(key: tuple) -> dict[str, Future] | None:
    """The futures started under ``key`` in this process (removed from here), or None."""
    with _lock:
        return _ahead.pop(key, None)


def result(futs: dict[str, Future] | None, name: str, compute: Callable[[], object]):
    """``name``'s result from ``futs`` when it was started and did not raise, else ``compute()``."""
    fut = (futs or {}).get(name)
    # exception() waits; what interrupts the wait (a task's soft time limit) propagates. A job
    # that raised is computed again below, raising there as it would have without this module.
    if fut is not None and not fut.cancelled() and fut.exception() is None:
        return fut.result()
    return compute()
