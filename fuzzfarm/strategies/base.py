"""The strategy interface: where every scheduling decision comes from.

A strategy answers three questions, and the runtime never looks behind them:

* ``pick(runnable, current, timer)``: which goroutine runs next. ``runnable`` is the list of
  runnable goroutines ordered by id (never empty, length >= 2 or ``timer`` is True);
  ``current`` is the goroutine that reached the scheduling point if it can continue, else
  None; ``timer`` says whether firing the earliest pending timer is an option. Return an
  index into ``runnable``, or ``len(runnable)`` to fire the timer first.
* ``pick_index(n, what)``: a data choice in [0, n) (which ready select case, where a map
  iteration starts). ``n >= 2``.
* ``begin(rt)``: a new run starts (strategies may live across runs).

Optionally ``pick_yield(runnable, current, timer)``, same contract as ``pick``, is asked
instead at ``gosched()`` (Go's ``runtime.Gosched``: the caller offers to let others run);
a strategy without it is asked ``pick``. Every call consumes exactly one decision.

A strategy may raise any exception (e.g. ``SchedulingError`` for a replay that diverges):
the runtime ends the run and re-raises it from ``gosim.run``; it is never taken for a
failure of the program.
"""

from __future__ import annotations

from typing import Protocol, Sequence


class Strategy(Protocol):
    """What the runtime asks (see the module docstring)."""

    def begin(self, rt) -> None:
        """A run starts on runtime ``rt``."""

    def pick(self, runnable: Sequence, current, timer: bool) -> int:
        """Index into ``runnable`` of the goroutine to run, or ``len(runnable)`` to fire the
        earliest timer (only when ``timer``)."""

    def pick_index(self, n: int, what: str) -> int:
        """A data choice in [0, n)."""


def stay_index(runnable: Sequence, current) -> int:
    """Index of ``current`` in ``runnable`` (the no-preemption choice), else 0."""
    if current is not None:
        for i, g in enumerate(runnable):
            if g is current:
                return i
    return 0


def next_index(runnable: Sequence, current) -> int:
    """Index of the first goroutine after ``current`` in id order, wrapping around (the
    round-robin choice at a yield), else 0."""
    if current is not None:
        gid = current.gid
        for i, g in enumerate(runnable):
            if g.gid > gid:
                return i
    return 0
