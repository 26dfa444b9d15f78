"""Shared pieces of the test-only harnesses."""

from __future__ import annotations

import os
import signal


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def _ppid(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def parent_is_celery_pool_process() -> bool:
    """True when this process was started by a Celery *pool child* of a fuzzfarm worker: the
    parent and the grandparent both run ``celery -A fuzzfarm.farm worker`` (a pool child is a fork
    of the main worker process). Never true under pytest or a shell."""
    parent = os.getppid()
    grand = _ppid(parent)
    want = ("celery", "fuzzfarm.farm", "worker")
    return all(w in _cmdline(parent) for w in want) and all(w in _cmdline(grand) for w in want)


def kill_pool_process() -> None:
    """SIGKILL the Celery pool child that runs us (a native crash / OOM kill of the job's
    process, as the worker sees it); does nothing anywhere else."""
    if parent_is_celery_pool_process():
        os.kill(os.getppid(), signal.SIGKILL)
