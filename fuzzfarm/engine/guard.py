"""Bound the wall time of one in-process harness run (walk and minimize children).

A harness can hang in plain Python (a busy loop no scheduling point interrupts). SIGALRM
raises :class:`RunTimeout` wherever the run is; it derives from BaseException so harness code
catching ``Exception`` cannot swallow it. Inside a goroutine the runtime turns it into a
goroutine panic whose ``cause`` is the RunTimeout: :func:`timed_out` sees both forms.
"""

from __future__ import annotations

import contextlib
import signal


class RunTimeout(BaseException):
    """A run took longer than its wall-clock limit."""


def _on_alarm(signum, frame):
    raise RunTimeout()


@contextlib.contextmanager
def wall_limit(seconds: float):
    """Raise RunTimeout in the block after ``seconds`` (main thread only)."""
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def timed_out(execution) -> bool:
    """True when ``execution`` (a harness Execution) ended because of the wall limit."""
    f = execution.failure
    return f is not None and isinstance(f.cause, RunTimeout)


def skip_instrumentation() -> None:
    """Run harness code uninstrumented in this process (:func:`fuzzfarm.instrument.disable`).

    Only a libFuzzer process needs coverage; a replay, minimize or walk process loads the
    same harness module and runs much faster uninstrumented. Call before loading the harness.
    """
    from fuzzfarm.instrument import disable
    disable()
