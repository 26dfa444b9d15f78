"""Helpers for the clusterloader2 port tests (no tests here): an explicit scheduling strategy and a
runner (start, optional sleep / gather, dispose on main)."""

from __future__ import annotations

import dataclasses
from typing import Callable

from fuzzfarm import gosim
from fuzzfarm.ports.clusterloader2 import ScriptBuilder, WaitForControlledPods


class PriorityStrategy:
    """A hand-written schedule, stated as goroutine priorities instead of decision indices.

    * The running goroutine keeps running while it can (no preemption), except that a checker
      goroutine named in ``eager`` runs as soon as it is spawned (once).
    * When the running goroutine blocks, the runnable goroutine whose name starts with the
      earliest prefix in ``order`` runs (unlisted names come last, ties by goroutine id).
    * A goroutine matching a prefix in ``hold`` is not picked while the virtual clock is in its
      ``[from, until)`` window: pending timers fire early instead (the goroutine is "slow").
    * Otherwise timers fire only when nothing can run; select cases and map iteration take the
      first option.
    """

    def __init__(self, order=("main", "worker", "informer", "checker"), hold: dict | None = None,
                 eager: tuple[str, ...] = ()):
        self.order = tuple(order)
        self.hold = dict(hold or {})
        self.eager = eager
        self.seen: set[int] = set()
        self.rt = None

    def begin(self, rt) -> None:
        self.rt = rt
        self.seen = set()

    def _rank(self, g) -> tuple[int, int]:
        for i, prefix in enumerate(self.order):
            if g.name.startswith(prefix):
                return i, g.gid
        return len(self.order), g.gid

    def _held(self, g) -> bool:
        return any(g.name.startswith(p) and lo <= self.rt.now < hi for p, (lo, hi) in self.hold.items())

    def pick(self, runnable, current, timer: bool) -> int:
        for i, g in enumerate(runnable):
            if g.gid not in self.seen:
                self.seen.add(g.gid)
                if g.name.startswith(self.eager) and self.eager:
                    return i
        ok = [i for i, g in enumerate(runnable) if not self._held(g)]
        if not ok and timer:
            return len(runnable)
        ok = ok or list(range(len(runnable)))
        for i in ok:
            if runnable[i] is current:
                return i
        return min(ok, key=lambda i: self._rank(runnable[i]))

    def pick_index(self, n: int, what: str) -> int:
        return 0


@dataclasses.dataclass
class Outcome:
    report: gosim.RunReport
    w: WaitForControlledPods | None
    start_err: object = None
    gather_err: object = "not called"
    seen: dict = dataclasses.field(default_factory=dict)

    @property
    def failure(self):
        return self.report.failure


def run_scenario(variant: str, build: Callable[[ScriptBuilder], None], *, strategy=None,
                 sleep: float = 0.0, gather: bool = False, dispose: bool = True,
                 operation_timeout: float = 60.0, sync_timeout: float = 60.0,
                 peek: Callable[[WaitForControlledPods, dict], None] | None = None, peek_at: float | None = None,
                 **run_kw) -> Outcome:
    """Main: build the cluster from ``build``, start, sleep ``sleep`` (calling ``peek`` at
    ``peek_at`` on the way), optionally gather, optionally dispose."""
    out = Outcome(None, None)

    def main() -> None:
        sb = ScriptBuilder()
        build(sb)
        w = WaitForControlledPods(sb.build(), variant, operation_timeout=operation_timeout)
        out.w = w
        out.start_err = w.start()
        slept = 0.0
        if peek is not None and peek_at is not None:
            gosim.sleep(peek_at)
            slept = peek_at
            peek(w, out.seen)
        if sleep > slept:
            gosim.sleep(sleep - slept)
        if gather:
            out.gather_err = w.gather(sync_timeout)
        if dispose:
            w.dispose()

    run_kw.setdefault("race", False)  # the harness's default (harnesses/checker_race.py RACE)
    out.report = gosim.run(main, strategy=strategy or PriorityStrategy(), **run_kw)
    return out
