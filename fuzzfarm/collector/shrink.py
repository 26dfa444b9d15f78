"""The shrinker: make a failing input smaller while it keeps failing the same way.

Layers as in Hypothesis: the shrinker reaches the program only through one call,
``test(data) -> Probe``; passes only *propose* candidates through :meth:`Shrinker.consider`,
the single acceptance function; "smaller" is one sort key; stopping is one exception with an
:class:`ExitReason`.

Acceptance: the candidate fails with the *expected signature* (a candidate that fails
differently does not count, however small: minimization must not drift to another bug,
docs/TRAPS.md#g3) and is strictly smaller by the current sort key:

* phase ``bytes``: ``(over, len(data), data)``, shortlex behind ``over``;
* phase ``schedule``: ``(over, preemptions, starvation, starved_total, len(data), data)``:
  fewer preemptions first, then less starvation (a runnable goroutine kept waiting while the
  clock advanced, which real Go rarely does: docs/timing.md), then fewer goroutines kept
  waiting (so the reproducer names the goroutine the bug needs starved, not a bystander).

``over`` is the starvation past the realism bound (``realism_s``, 0.1 s; 0 within it): a
reproducer that needs no unrealistic starvation never becomes one that does, and one that
does needs as little as the search can find, whatever its length or preemptions.

Passes (deterministic, each one sweep, never looping to a fixed point itself; the index is
kept when the target changes): ``delete_chunks`` (ddmin-style, halving chunk sizes),
``zero_chunks``, ``lower_bytes`` (towards 0: 0, 1, 2, 3, b/2, b-1), and in the schedule phase
``drop_switches`` (ddmin over the context switches anchored to goroutine progress),
``bounded_search`` (CHESS preemption bounding, bounds 1 and 2), ``cut_schedule`` (drop unread
bytes and the tail after the last preemption), ``drop_preemptions_guided`` (refuse one
preemption, follow the rest by goroutine identity) and ``drop_preemptions`` (rewrite each
preemption into "stay" via the strategy's ``preemption_edits``, all at once first, then one at
a time). See :meth:`Shrinker.run` for the order of the phases.
"""

from __future__ import annotations

import dataclasses
import enum
import time
from typing import Callable


@dataclasses.dataclass(frozen=True)
class Probe:
    """What one run of a candidate said."""

    signature: str | None  # None: it did not fail
    preemptions: int = 0
    edits: tuple[tuple[int, int], ...] = ()  # (offset, byte) turning a preemption into "stay"
    consumed: int = 0  # offset after the last schedule byte read
    decisions: tuple[int, ...] = ()  # the recorded schedule (gosim RunReport.decisions)
    scenario: str = ""  # what the events decoded to (the harness's description)
    starvation: float = 0.0  # virtual s a runnable goroutine waited while the clock advanced
    starved_total: float = 0.0  # the longest waits of every goroutine kept waiting, summed


class ExitReason(enum.Enum):
    finished = "no pass makes progress"
    max_runs = "run budget spent ({max_runs} runs)"
    wall = "wall budget spent ({budget_s:g} s)"
    not_reproducible = "the input does not fail with the expected signature"

    def describe(self, **kw) -> str:
        return self.value.format(**kw)


class StopShrinking(Exception):
    def __init__(self, reason: ExitReason):
        super().__init__(reason.name)
        self.reason = reason


MIN_VALUES = (0, 1, 2, 3)


class Shrinker:
    def __init__(self, test: Callable[[bytes], Probe], initial: bytes, expected: str, *,
                 max_runs: int = 20_000, budget_s: float | None = None,
                 on_improve: Callable[[bytes, Probe], None] | None = None,
                 guide: "Callable[[bytes, tuple, int | None], tuple[bytes, list[int]]] | None" = None,
                 bounded: "Callable[[bytes, dict], tuple[bytes, list]] | None" = None,
                 switches: "Callable[[bytes, tuple], list] | None" = None,
                 anchored: "Callable[[bytes, list], bytes] | None" = None,
                 realism_s: float = 0.1):
        self.test = test
        self.realism_s = realism_s
        # switches(data, decisions) -> the context switches of the run following ``decisions``,
        # anchored to goroutine progress; anchored(data, switches) -> bytes input of ``data``'s
        # events under exactly those switches (see ``strategies.anchored``)
        self.switches = switches
        self.anchored = anchored
        # guide(data, decisions, drop) -> (bytes input following ``decisions`` by goroutine
        # identity with preemption ``drop`` refused, preemption decision indices of that run)
        self.guide = guide
        # bounded(data, overrides, events=True) -> (bytes input of ``data``'s events under the
        # no-preemption schedule with ``overrides``, that run's decision points (each with the
        # event before it only when ``events``), the signature it failed with or None)
        self.bounded = bounded
        self._bounded_searched: set[str] = set()  # scenarios bounded_search has covered
        self.expected = expected
        self.max_runs = max_runs
        self.budget_s = budget_s
        self.deadline = None if budget_s is None else time.monotonic() + budget_s
        self.on_improve = on_improve
        self.phase = "bytes"
        self.cache: dict[bytes, Probe] = {}
        self.runs = 0
        self.shrinks = 0
        self.rejected_other = 0  # candidates that failed, but with another signature
        self.initial = bytes(initial)
        self.best = self.initial
        self.best_probe: Probe | None = None
        self.champion: tuple[bytes, Probe] | None = None  # the best schedule-phase result so far
        self.initial_probe: Probe | None = None
        self.stopped: ExitReason | None = None

    # -- the budgets, spent by every run of the program
    def _spend(self) -> None:
        if self.runs >= self.max_runs:
            raise StopShrinking(ExitReason.max_runs)
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise StopShrinking(ExitReason.wall)
        self.runs += 1

    # -- the one place that runs the test
    def probe(self, data: bytes) -> Probe:
        p = self.cache.get(data)
        if p is not None:
            return p
        self._spend()
        p = self.cache[data] = self.test(data)
        return p

    # -- "smaller", defined once
    def over(self, probe: Probe | None) -> float:
        """Starvation past the realism bound (0 within it): the first thing "smaller" compares."""
        s = probe.starvation if probe is not None else 0.0
        return s if s > self.realism_s else 0.0

    def sort_key(self, data: bytes, probe: Probe) -> tuple:
        if self.phase == "bytes":
            return (self.over(probe), len(data), data)
        return (self.over(probe), probe.preemptions, probe.starvation, probe.starved_total, len(data), data)

    # -- the acceptance function
    def consider(self, data: bytes) -> bool:
        data = bytes(data)
        if data == self.best:
            return False
        if self.phase == "bytes" and not self.over(self.best_probe) and (len(data), data) >= (len(self.best), self.best):
            return False  # cannot be smaller whatever it does
        p = self.probe(data)
        if p.signature != self.expected:
            if p.signature is not None:
                self.rejected_other += 1
            return False
        if self.sort_key(data, p) >= self.sort_key(self.best, self.best_probe):
            return False
        self.best, self.best_probe = data, p
        self.shrinks += 1
        if self.on_improve is not None and (self.champion is None or
                                            self.sort_key(data, p) < self.sort_key(*self.champion)):
            self.on_improve(data, p)
        return True

    # -- passes: each proposes candidates through consider()
    def delete_chunks(self) -> None:
        k = 1 << max(0, len(self.best).bit_length() - 1)
        while k >= 1:
            i = 0
            while i < len(self.best):
                b = self.best
                if not self.consider(b[:i] + b[i + k:]):
                    i += k
            k //= 2

    def zero_chunks(self) -> None:
        k = 1 << max(0, len(self.best).bit_length() - 1)
        while k >= 2:
            for i in range(0, len(self.best), k):
                b = self.best
                chunk = b[i:i + k]
                if any(chunk):
                    self.consider(b[:i] + bytes(len(chunk)) + b[i + k:])
            k //= 2

    def lower_bytes(self) -> None:
        i = 0
        while i < len(self.best):
            v = self.best[i]
            for w in sorted({w for w in (*MIN_VALUES, v // 2, v - 1) if 0 <= w < v}):
                b = self.best
                if self.consider(b[:i] + bytes([w]) + b[i + 1:]):
                    break
            i += 1

    def cut_schedule(self) -> None:
        p = self.best_probe
        cuts = [p.consumed]
        if p.edits:
            cuts.append(p.edits[-1][0] + 1)
        for cut in sorted(set(cuts), reverse=True):
            if 0 <= cut < len(self.best):
                self.consider(self.best[:cut])

    @staticmethod
    def _apply(data: bytes, edits) -> bytes:
        out = bytearray(data)
        for off, val in edits:
            if off < len(out):
                out[off] = val
        return bytes(out)

    def drop_preemptions(self) -> None:
        if len(self.best_probe.edits) > 1:
            self.consider(self._apply(self.best, self.best_probe.edits))
        i = 0
        while i < len(self.best_probe.edits):
            if not self.consider(self._apply(self.best, [self.best_probe.edits[i]])):
                i += 1

    def _guided(self, drop):
        self._spend()
        return self.guide(self.best, self.best_probe.decisions, drop)

    def drop_switches(self) -> None:
        """Delta debugging over the best run's context switches, each anchored to the progress
        of the goroutine it interrupts (``strategies.anchored``): remove chunks of switches,
        halving the chunk size down to one; the switches left stay where they were, so a
        random walk's twenty preemptions come down to the few the failure needs."""
        if self.switches is None or self.anchored is None or not self.best_probe.decisions:
            return
        if self.best_probe.preemptions == 0:
            return
        self._spend()
        switches = self.switches(self.best, self.best_probe.decisions)
        k = max(1, len(switches) // 2)
        while k:
            i = 0
            while i < len(switches):
                candidate = switches[:i] + switches[i + k:]
                self._spend()
                if self.consider(self.anchored(self.best, candidate)):
                    switches = candidate
                else:
                    i += k
            k //= 2

    def bounded_search(self) -> None:
        """Look for a schedule with at most one, then at most two preemptions or timer firings
        (CHESS-style iterative preemption bounding): one deviation from the no-preemption
        schedule at each of its decision points, then a second deviation at each decision point
        after the first in that run. Decisions right after a shared-state event (map access,
        lock, channel, WaitGroup ...) are tried first: a race is two goroutines' accesses
        interleaved, and a switch after a purely local step rarely changes what they see.
        Bound 2 is what the prow seed bug's ``concurrent map writes`` needs (T1: G2 stops in the
        loop body, G3 stops inside its write); it gives up after ``BOUND2_OTHER_STREAK`` pairs
        in a row fail with another bug's signature. Runs once per scenario (it depends only on the
        best input's events, not its schedule): again when the byte passes change the events."""
        scenario = self.best_probe.scenario
        if self.bounded is None or scenario in self._bounded_searched or self.best_probe.preemptions <= 1:
            return
        self._bounded_searched.add(scenario)
        candidate, points, sig = self._bounded({})
        if self._consider_searched(candidate, sig):
            return
        if self._beaten(1):
            return
        firsts = []
        running = {p[0]: p[1] for p in points}
        for at, choice in self._deviations(points, after=-1)[:self.BOUND_POINTS]:
            candidate, later, sig = self._bounded({at: choice})
            if self._consider_searched(candidate, sig) and self.best_probe.preemptions <= 1:
                return
            firsts.append((at, choice, later))
        if self.best_probe.preemptions <= 2 or self._beaten(2):
            return
        # Second deviations that switch back to the goroutine the first one interrupted come
        # first (T1's shape: G2 stops, G3 runs into the window, G3 stops, G2 walks into it).
        pairs = [(choice2 != running.get(at), order, at, choice, at2, choice2)
                 for order, (at, choice, later) in enumerate(firsts)
                 for at2, choice2 in self._deviations(later, after=at)]
        pairs.sort(key=lambda p: p[:2])  # stable: shared-state points first within each group
        other_streak = 0  # pairs in a row that failed with another bug's signature
        for tried, (_, _, at, choice, at2, choice2) in enumerate(pairs):
            if tried >= self.BOUND2_RUNS or other_streak >= self.BOUND2_OTHER_STREAK:
                return
            candidate, _, sig = self._bounded({at: choice, at2: choice2}, events=False)
            if self._consider_searched(candidate, sig) and self.best_probe.preemptions <= 2:
                return
            other_streak = other_streak + 1 if sig is not None and sig != self.expected else 0

    def _consider_searched(self, data: bytes, signature: str | None) -> bool:
        """:meth:`consider` for a candidate the bounded search has just run: its signature is
        known, so one that did not fail or failed with another signature is refused without
        running it again (most of the search's candidates, thousands when bound 2 finds
        nothing); only one with the expected signature is probed, for what "smaller" compares
        (its preemption edits and schedule length belong to the bytes input's run)."""
        if signature == self.expected:
            return self.consider(data)
        data = bytes(data)
        if signature is not None and data != self.best:
            self.rejected_other += 1
            # a later pass proposing the same bytes is refused on this signature, without a run
            self.cache.setdefault(data, Probe(signature))
        return False

    def _beaten(self, bound: int) -> bool:
        """Whether a schedule phase's result (the champion) already has fewer than ``bound``
        preemptions. The stage of bound ``bound`` proposes schedules with ``bound`` deviations
        from the no-preemption one, ranked below the champion by the schedule key, so it is
        skipped: bound 2 alone spends up to BOUND2_RUNS runs (seconds) when no pair fails, for
        a result the champion wins anyway."""
        return self.champion is not None and self.champion[1].preemptions < bound

    BOUND_POINTS = 200
    BOUND2_RUNS = 4000
    # Bound 2 stops after this many pairs in a row failed with another bug's signature: the
    # other bug fires first on every schedule two deviations from the no-preemption one reach
    # here (the checker's WaitGroup-reuse hazard: the seed bug's TypeError on all 4000 pairs,
    # 4000 runs for nothing). A pair that does not fail breaks the streak: the search has left
    # the other bug's reach. Measured on 52 random-walk reproducers of 25 buckets (checker,
    # cluster-builder, examples), each of the 4 bound-2 results came after at most 40 such
    # pairs in all, and the limit left all 52 results byte for byte as they were.
    BOUND2_OTHER_STREAK = 200
    # events after which a preemption is tried first: accesses to state other goroutines share
    LOCAL_EVENTS = frozenset({None, "net", "sleep", "gosched", "go", "exit", "wake", "block"})

    @classmethod
    def _deviations(cls, points, after: int) -> list[tuple[int, int]]:
        """``(decision index, choice)`` for every way to deviate from ``points`` (another
        runnable goroutine, or 0: fire a timer) after decision ``after``, shared-state points
        first, each group in schedule order."""
        shared, local = [], []
        for at, cur, gids, timer, event in points:
            if at <= after:
                continue
            options = [(at, g) for g in gids if g != cur] + ([(at, 0)] if timer else [])
            (local if event in cls.LOCAL_EVENTS else shared).extend(options)
        return shared + local

    def _bounded(self, overrides, events: bool = True):
        """``events=False``: the run's points are not used (bound 2's pairs), so it is not
        traced: tracing only records (the schedule is the same) but walks frames at every event,
        2-3x the cost of an untraced run of the same pair on cluster-builder."""
        self._spend()
        return self.bounded(self.best, overrides, events=events)

    def drop_preemptions_guided(self) -> None:
        """Refuse one preemption at a time while following the rest of the schedule by
        goroutine identity (see ``strategies.guided``); later preemptions first."""
        if self.guide is None or not self.best_probe.decisions:
            return
        _, points = self._guided(None)
        for at in reversed(points):
            if at >= len(self.best_probe.decisions):
                continue
            candidate, _ = self._guided(at)
            self.consider(candidate)

    # -- driving
    def fixate(self, passes) -> None:
        while True:
            before = self.best
            for shrink_pass in passes:
                shrink_pass()
            if self.best == before:
                return

    def _schedule_phase(self, start: tuple[bytes, Probe], passes) -> tuple[bytes, Probe]:
        """Fixate ``passes`` from ``start``; the result becomes the champion if it ranks first."""
        self.best, self.best_probe = start
        self.fixate(passes)
        if self.champion is None or self.sort_key(self.best, self.best_probe) < self.sort_key(*self.champion):
            self.champion = (self.best, self.best_probe)
        return self.best, self.best_probe

    def run(self) -> ExitReason:
        """Shrink until no pass helps or a budget is spent; ``best`` holds the result.

        1. bytes phase from the input (shortlex);
        2. schedule phase from that result, without ``bounded_search``;
        3. the same from the *original* input, where every preemption rewrite still has the
           later schedule bytes to re-read (the byte-minimal input often has none to spare, so
           its preemptions cannot be rewritten away);
        4. schedule phase with every pass from the results of 2 and of 3 in turn.
        The smallest by the schedule key wins. The cheap passes of 2 and 3 come first because
        the bounded search's second bound can cost thousands of runs (seconds) when no pair
        of deviations fails, and is skipped once a result has fewer preemptions than its bound
        (``_beaten``): one start's cheap passes often reach one preemption when the other's
        cannot.
        """
        schedule_passes = [self.drop_switches, self.bounded_search, self.cut_schedule, self.drop_preemptions_guided,
                           self.drop_preemptions, self.delete_chunks, self.zero_chunks, self.lower_bytes]
        cheap = [p for p in schedule_passes if p != self.bounded_search]
        try:
            self.initial_probe = self.best_probe = self.probe(self.best)
            if self.best_probe.signature != self.expected:
                self.stopped = ExitReason.not_reproducible
                return self.stopped
            self.phase = "bytes"
            self.fixate([self.delete_chunks, self.zero_chunks, self.lower_bytes])
            self.phase = "schedule"
            starts = [self._schedule_phase((self.best, self.best_probe), cheap),
                      self._schedule_phase((self.initial, self.initial_probe), cheap)]
            for start in starts:
                self._schedule_phase(start, schedule_passes)
            self.stopped = ExitReason.finished
        except StopShrinking as stop:
            self.stopped = stop.reason
        if self.champion is not None and self.sort_key(*self.champion) < self.sort_key(self.best, self.best_probe):
            self.best, self.best_probe = self.champion
        return self.stopped
