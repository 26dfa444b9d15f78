"""Where an example's port once behaved differently from upstream, a check that it now behaves as
upstream does (docs/CASES.md), so a port drifting back fails here and not silently in what the
case reports: a failure Go would not have, another crash state, an extra leaked goroutine.

* HC-06: ``calculateDesiredShards`` offers the reshard request with ``select``/``default``: taken
  when the reshard loop waits for it, skipped when it does not (it never waits for the loop);
  the bug needs no starvation (the harness's default bound keeps it findable).
* HC-10: the elected goroutine waits on the manager's election alone, so the second ``Done()``
  comes whatever the schedule (depth 0).
* HC-11: the poller drops a tick nobody is waiting for, so the leaked poller waits in its outer
  select (wait.go:374), never on the send.
* HC-12: ``batchPerform`` does not wait after its loop: only workers leak, never the launcher.
* DR-03: at v0.8.1 ``Fulfill`` already writes under the logger's mutex; the race stands because
  the reader takes none.
"""

from __future__ import annotations

from fuzzfarm import examples, gosim
from fuzzfarm.strategies import PCTStrategy, RandomStrategy


class StarveUntil:
    """A schedule that runs ``victim`` only when nothing else can run (it fires timers first)
    until virtual time ``until``; from then on it runs ``victim`` whenever it can."""

    def __init__(self, victim: str, until: float):
        self.victim, self.until = victim, until

    def begin(self, rt) -> None:
        self.rt = rt

    def pick(self, runnable, current, timer) -> int:
        mine = [i for i, g in enumerate(runnable) if g.name == self.victim]
        others = [i for i, g in enumerate(runnable) if g.name != self.victim]
        if self.rt.now < self.until:
            if others:
                return others[0]
            return len(runnable) if timer else 0
        return mine[0] if mine else 0

    def pick_index(self, n: int, what: str) -> int:
        return 0


def _trace_details(result) -> list[str]:
    return [e[5] for e in result.trace.to_json()]


def test_hc06_reshard_request_is_skipped_when_the_loop_is_not_waiting_and_taken_when_it_is(monkeypatch):
    c = examples.load("hc06")
    # Stop half a second after the tick, and the reshard loop not yet in its select at the tick
    # (t=10 s) but scheduled before Stop: the request was dropped, so the loop never reshards
    # (no second softShutdown channel), and nothing fails
    monkeypatch.setattr(c, "STOP_AT", 10.5)
    for variant in (c.buggy, c.fixed):
        r = gosim.run(variant, strategy=StarveUntil("reshardLoop", 10.2), trace=True, **c.RUN_KW)
        assert r.failure is None, r.failure.render()
        assert "softShutdown(2)" not in _trace_details(r), r.render_trace()
    # the scenario's timing (Stop at the tick's instant), fair schedules: the loop waits in its
    # select, and when the tick is handled before Stop closes quit the request is taken
    monkeypatch.undo()
    s = RandomStrategy(3)
    taken = sum("softShutdown(2)" in _trace_details(gosim.run(c.fixed, strategy=s, trace=True, **c.RUN_KW))
                for _ in range(40))
    assert 0 < taken < 40


def test_hc10_buggy_form_fails_on_every_schedule():
    c = examples.load("hc10")
    for strategy in (RandomStrategy(5), PCTStrategy(5)):
        for i in range(100):
            f = gosim.run(c.buggy, strategy=strategy, **c.RUN_KW).failure
            assert f is not None and f.kind == c.KIND, f"run {i} under {type(strategy).__name__}: {f and f.render()}"


def test_hc11_leaked_poller_waits_in_its_outer_select():
    c = examples.load("hc11")
    for strategy in (RandomStrategy(5), PCTStrategy(5)):
        for _ in range(50):
            f = gosim.run(c.buggy, strategy=strategy, **c.RUN_KW).failure
            assert f is not None and f.kind == "goroutine leak", f and f.render()
            assert [(d.name, d.stack[0].go_site) for d in f.dumps] == [("poller", "wait.go:374")], f.render()


def test_hc12_only_workers_leak():
    c = examples.load("hc12")
    leaks = 0
    for strategy in (RandomStrategy(5), PCTStrategy(5)):
        for _ in range(100):
            f = gosim.run(c.buggy, strategy=strategy, **c.RUN_KW).failure
            if f is None:
                continue
            assert f.kind == "goroutine leak", f.render()
            assert f.dumps and all(d.name.startswith("worker[") for d in f.dumps), f.render()
            leaks += 1
    assert leaks > 0


def test_dr03_buggy_writer_holds_the_mutex_and_the_race_stands():
    c = examples.load("dr03")
    r = gosim.run(c.buggy, strategy=RandomStrategy(1), trace=True, **c.RUN_KW)
    assert r.failure is not None and r.failure.kind == "data race", r.failure and r.failure.render()
    locks = [e for e in r.trace.to_json() if e[4] == "lock" and e[5] == "DelegatingLogger.lock"]
    assert locks and all("loggerPromise.Fulfill" in e[6] for e in locks), r.render_trace()


def test_hc06_found_with_no_starvation():
    """The scenario reaches the bug through event orders alone (the tick and Stop at one
    instant, L's flush under the write lock): with early timer firing bounded to 0 s of
    starvation the buggy form still fails."""
    c = examples.load("hc06")
    found = 0
    for strategy in (RandomStrategy(1), PCTStrategy(1)):
        for _ in range(40):
            r = gosim.run(c.buggy, strategy=strategy, max_starvation_s=0.0, **c.RUN_KW)
            if r.failure is not None:
                assert r.failure.kind == c.KIND and r.starvation == 0.0, r.failure.render()
                found += 1
    assert found >= 10
