"""Fix-check work started ahead of its step, so that it runs beside the verify replays.

Once a bucket is minimized, three pieces of its fix check depend only on the minimized
reproducer: the proof (``collector.prove_fixed``, the longest: its whole CPU budget when the
search is not exhausted), the fix evidence of a reproducer that is not flaky
(``collector.fix_verify`` with ``buggy_ok == buggy_n``), and the reproducer's traced replay
for the final artifact. The verify step starts them in this process's thread pool (each is a
child process, so threads are enough) and the fix_check step takes their results here when it
runs in the same process. Nothing here is stored: only the fix_check step writes, under its
lease, so a process that dies, a step run in another process, or a flaky reproducer (whose fix
evidence depends on the buggy rate) just computes the result again in the step itself.

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

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_ahead: "collections.OrderedDict[tuple, dict[str, Future]]" = collections.OrderedDict()


def _executor() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="fuzzfarm-triage-ahead")
    return _pool


def start(key: tuple, jobs: dict[str, Callable[[], object]]) -> dict[str, Future]:
    """Run ``jobs`` (name -> callable) in the background under ``key``; a key already started
    keeps its first futures (a redelivered verify message starts nothing twice)."""
    if not ENABLED:
        return {}
    with _lock:
        if key in _ahead:
            return _ahead[key]
        futs = {name: _executor().submit(fn) for name, fn in jobs.items()}
        _ahead[key] = futs
        while len(_ahead) > KEEP:
            _ahead.popitem(last=False)
        return futs


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
