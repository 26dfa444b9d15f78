"""Bound the wall time of one in-process harness run (walk and minimize children).

A harness can hang in plain Python (a busy loop no scheduling point interrupts). SIGALRM
raises :class:`RunTimeout` wherever the run is; it derives from BaseException so harness code
catching ``Exception`` cannot swallow it. Inside a goroutine the runtime turns it into a
goroutine panic whose ``cause`` is the RunTimeout: :func:`timed_out` sees both forms.
"""

from __future__ import annotations

import signal

import _signal


class RunTimeout(BaseException):
    """A run took longer than its wall-clock limit."""


def _on_alarm(signum, frame):
    raise RunTimeout()


class wall_limit:
    """``with wall_limit(seconds):`` raises RunTimeout in the block after ``seconds`` (main
    thread only). A class, not a generator, and ``_signal.signal`` (the C function: the
    ``signal`` module's wrapper turns the old handler into an enum, an exception per call for a
    Python handler): a walk enters it once per run, and that cost 8 us of a 100-200 us run.
    The handler is installed at every entry, in case the harness installed its own."""

    __slots__ = ("seconds",)

    def __init__(self, seconds: float):
        self.seconds = seconds

    def __enter__(self):
        _signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(self, *exc) -> bool:
        signal.setitimer(signal.ITIMER_REAL, 0)
        return False


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
