"""Schedules written as context switches anchored to each goroutine's own progress.

Used by schedule minimization. A recorded schedule is a list of decision *indices*; take one
preemption out and every later decision happens at another index, so an index-keyed schedule
loses the rest of the interleaving. Here a schedule is the list of switches it makes, each keyed
by *who was running and how far it had got*: ``(gid, n, choice)`` = "at goroutine ``gid``'s
``n``-th scheduling point (counting from 0, in this run), run goroutine ``choice`` (or fire a
timer: ``TIMER_CHOICE``)" — for a goroutine that blocked or exited, the point is the decision
right after it. Data choices (select case, map iteration start) are ``(gid, n, -(k + 1))``.
Removing a switch leaves every other one anchored where it was, which is what lets delta
debugging find the two preemptions a race needs among the twenty a random walk made.

:class:`AnchorRecorder` turns any strategy's run into that list; :class:`AnchoredStrategy`
follows a list, keeping the current goroutine running (or, after a block, the lowest-id
runnable one) everywhere else, and ignoring a switch whose target cannot run.
"""

from __future__ import annotations

from .base import stay_index
from .guided import TIMER_CHOICE

Switch = tuple[int, int, int]  # (gid, its n-th scheduling point, choice)


class _Anchors:
    """Counts each goroutine's scheduling points; the anchor of a decision is the running
    goroutine's (``current``, or with None the last one picked: it just blocked or exited, or
    it is making a data choice)."""

    def __init__(self) -> None:
        self.steps: dict[int, int] = {}
        self.last = 1  # the goroutine running now (main first); set by whoever picks

    def begin(self) -> None:
        self.steps = {}
        self.last = 1

    def at(self, current) -> tuple[int, int]:
        gid = current.gid if current is not None else self.last
        n = self.steps.get(gid, 0)
        self.steps[gid] = n + 1
        return gid, n


class AnchorRecorder:
    """Wrap strategy ``inner``; after a run, ``switches`` lists every decision where ``inner``
    did something other than the default (see the module docstring)."""

    def __init__(self, inner):
        self.inner = inner
        self.anchors = _Anchors()
        self.switches: list[Switch] = []

    def begin(self, rt) -> None:
        self.anchors.begin()
        self.switches = []
        self.inner.begin(rt)

    def pick(self, runnable, current, timer: bool) -> int:
        gid, n = self.anchors.at(current)
        i = self.inner.pick(runnable, current, timer)
        if i >= len(runnable):
            self.switches.append((gid, n, TIMER_CHOICE))
            return i
        if i != stay_index(runnable, current):
            self.switches.append((gid, n, runnable[i].gid))
        self.anchors.last = runnable[i].gid
        return i

    def pick_index(self, n: int, what: str) -> int:
        gid, k = self.anchors.at(None)  # the running goroutine's choice
        i = self.inner.pick_index(n, what)
        if i:
            self.switches.append((gid, k, -(i + 1)))
        return i


class AnchoredStrategy:
    """Follow ``switches`` (a list of :data:`Switch`); the default everywhere else."""

    def __init__(self, switches):
        self.switches = {(gid, n): choice for gid, n, choice in switches}
        self.anchors = _Anchors()

    def begin(self, rt) -> None:
        self.anchors.begin()

    def pick(self, runnable, current, timer: bool) -> int:
        want = self.switches.get(self.anchors.at(current))
        i = stay_index(runnable, current)
        if want == TIMER_CHOICE and timer:
            return len(runnable)
        if want is not None and want > 0:
            for k, g in enumerate(runnable):
                if g.gid == want:
                    i = k
                    break
        self.anchors.last = runnable[i].gid
        return i

    def pick_index(self, n: int, what: str) -> int:
        want = self.switches.get(self.anchors.at(None))
        if want is not None and want < 0 and -want - 1 < n:
            return -want - 1
        return 0

