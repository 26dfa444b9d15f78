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
"""

from __future__ import annotations

from typing import Protocol, Sequence


class Strategy(Protocol):
    def begin(self, rt) -> None: ...

    def pick(self, runnable: Sequence, current, timer: bool) -> int: ...

    def pick_index(self, n: int, what: str) -> int: ...


def stay_index(runnable: Sequence, current) -> int:
    """Index of ``current`` in ``runnable`` (the no-preemption choice), else 0."""
    if current is not None:
        for i, g in enumerate(runnable):
            if g is current:
                return i
    return 0
