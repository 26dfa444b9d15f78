"""The slice that leads a failing run's trace (fuzzfarm/gosim/trace_slice.py): the events on the
objects in the failure, with the goroutines involved, from the runtime's own events. Checked on
the example ports' failures against what each case is known to be (docs/CASES.md): the etcd
simple-token deadlock's lock and channel, a data race's location and both goroutines, the
channel closed twice, the channel sent on after its close, the map written by two goroutines.
"""

from __future__ import annotations

import pytest

from fuzzfarm import gosim
from fuzzfarm.examples import load
from fuzzfarm.gosim import failures as F
from fuzzfarm.strategies import RandomStrategy

SEEDS = 200


def failing(case: str, kind: str, longest_of: int = 1):
    """A traced failing run of ``case`` ending in ``kind``: of the first ``longest_of`` such seeds,
    the one with the most events."""
    mod = load(case)
    runs = []
    for seed in range(SEEDS):
        r = gosim.run(mod.buggy, strategy=RandomStrategy(seed), trace=True, **mod.RUN_KW)
        if r.failure is not None and r.failure.kind == kind:
            runs.append(r)
            if len(runs) == longest_of:
                break
    assert runs, f"{case}: no {kind} in {SEEDS} seeds"
    return max(runs, key=lambda r: len(r.trace.events))


def _common(rep):
    """What every slice must be: the failure event in it, each event on one of its objects or the
    failing goroutine's own, in timeline order, and shorter than the timeline."""
    ev = rep.trace.events
    sl = rep.trace_slice()
    assert sl.events == sorted(set(sl.events))
    assert ev[sl.events[-1]].kind == "failure" or any(ev[i].kind == "failure" for i in sl.events)
    for i in sl.events:
        e = ev[i]
        assert e.kind == "failure" or set(e.objs) & set(sl.objects) or e.gid == rep.failure.goroutine, e
    return ev, sl


def test_etcd_deadlock_slice_is_the_lock_and_channel_wait_cycle_and_short():
    rep = failing("hc16", "deadlock", longest_of=5)
    ev, sl = _common(rep)
    assert len(ev) >= 80  # a long timeline: the point of the slice
    assert {"simpleTokensMu", "resetSimpleTokenCh"} <= set(sl.objects), sl
    blocked = [d.gid for d in rep.failure.dumps if d.state == "blocked"]
    assert set(blocked) <= set(sl.goroutines)
    for g in blocked:  # each blocked goroutine's final wait is in the slice
        last = max(i for i, e in enumerate(ev) if e.gid == g and e.kind == "block")
        assert last in sl.events, (g, ev[last])
    # the read lock still held at the end (an rlock with no runlock after it) is in the slice: the
    # writer waits for it
    held = [i for i, e in enumerate(ev) if e.kind == "rlock" and "simpleTokensMu" in e.objs
            and not any(f.gid == e.gid and f.kind == "runlock" for f in ev[i + 1:])
            and not any(f.gid == e.gid and f.kind == "block" and "RLock" in f.detail for f in ev[i + 1:])]
    assert held and set(held) <= set(sl.events), held
    # a goroutine that let go of the lock before the end is history, not part of the wait cycle
    on_lock = {}
    for e in ev:
        if "simpleTokensMu" in e.objs:
            on_lock[e.gid] = e.kind
    released = {g for g, k in on_lock.items() if k in ("unlock", "runlock")}
    assert released and not [i for i in sl.events if ev[i].gid in released and "simpleTokensMu" in ev[i].objs]
    assert len(sl.events) <= 20 and len(sl.events) * 4 <= len(ev), (len(sl.events), len(ev))


def test_data_race_slice_is_the_location_and_both_goroutines_with_their_stacks():
    rep = failing("dr01", "data race")
    ev, sl = _common(rep)
    f = rep.failure
    assert sl.objects == [f.location] == ["LeaderElector.observed_record"]
    assert {f.access[1], f.previous[1]} <= set(sl.goroutines)
    ops = {(ev[i].gid, ev[i].kind) for i in sl.events}
    assert (f.access[1], f.access[0].lower()) in ops and (f.previous[1], f.previous[0].lower()) in ops
    text = rep.render_slice()
    assert "WARNING: DATA RACE" in text and str(f.access[3]) in text and str(f.previous[3]) in text


def test_close_of_closed_channel_slice_shows_the_first_close():
    rep = failing("hc06", "close of closed channel")
    ev, sl = _common(rep)
    assert len(sl.objects) == 1
    closes = [i for i in sl.events if ev[i].kind == "close" and ev[i].objs == tuple(sl.objects)]
    # the earlier close by another goroutine, then the failing goroutine's own
    assert len(closes) == 2 and ev[closes[0]].gid != rep.failure.goroutine == ev[closes[1]].gid


def test_send_on_closed_channel_slice_shows_the_close_and_the_send():
    rep = failing("hc08", "send on closed channel")
    ev, sl = _common(rep)
    kinds = [(ev[i].kind, ev[i].gid == rep.failure.goroutine) for i in sl.events if ev[i].objs == tuple(sl.objects)]
    assert ("close", False) in kinds and ("send", True) in kinds


def test_map_writes_slice_shows_the_other_goroutines_open_write():
    rep = failing("hc04", "concurrent map writes")
    ev, sl = _common(rep)
    assert sl.objects == [rep.failure.obj]
    others = [i for i in sl.events if ev[i].kind.startswith("map.write") and ev[i].gid != rep.failure.goroutine]
    assert others


def test_trace_text_leads_with_the_slice_and_keeps_the_full_timeline():
    rep = failing("hc16", "deadlock")
    text = rep.render_trace()
    assert text.startswith("failure: deadlock")
    head, _, rest = text.partition("full timeline:")
    assert "what matters:" in head and rest
    assert rep.trace.render() .split("\n", 1)[0] in rest  # the legend, then every event
    assert rest.count("\n") > head.count("\n")
    assert rep.render_trace(lead=False).startswith("starvation:")


def test_no_failure_no_slice():
    rep = gosim.run(load("hc16").fixed, strategy=RandomStrategy(0), trace=True, **load("hc16").RUN_KW)
    assert rep.failure is None and rep.trace_slice() is None and rep.render_slice() == ""


def test_goroutine_leak_slice_is_the_channel_the_leaked_goroutine_waits_on():
    rep = failing("hc12", "goroutine leak")
    ev, sl = _common(rep)
    leaked = [d.gid for d in rep.failure.dumps]
    last = {g: max(i for i, e in enumerate(ev) if e.gid == g and e.kind == "block") for g in leaked}
    assert set(sl.objects) == {o for i in last.values() for o in ev[i].objs} == {"errs"}
    assert set(last.values()) <= set(sl.events)


class _Checker:
    cancel = gosim.Shared(None)
    stopped = gosim.Shared(False)

    def __init__(self):
        self.cancel = None
        self.stopped = False


def test_nil_call_slice_leads_with_the_nil_state_whatever_locks_are_released_after():
    """The seed bug's shape: Stop calls a nil ``cancel`` while holding several locks. The locks
    are let go of after the read (deferred unlocks), so "what the goroutine used last" were the
    locks alone and the slice left out the nil field the failure names (a newcomer's checker
    reproducer); the last read of race-checked state now leads."""
    from fuzzfarm.gosim.trace_slice import failure_slice

    def program():
        c = _Checker()
        locks = [gosim.Mutex(f"l{i}") for i in range(4)]
        with locks[0], locks[1], locks[2], locks[3]:
            c.cancel()

    rep = gosim.run(program, strategy=RandomStrategy(1), trace=True)
    assert rep.failure is not None and rep.failure.kind == "goroutine panic"
    sl = failure_slice(rep.trace.events, rep.failure)
    assert sl.objects[0] == "_Checker.cancel", sl.objects
    kinds = [(rep.trace.events[i].kind, rep.trace.events[i].objs) for i in sl.events]
    assert ("read", ["_Checker.cancel"]) in [(k, list(o)) for k, o in kinds], kinds


def test_nil_call_slice_leads_with_the_read_at_the_panic_not_a_deferred_one():
    """The checker reproducer's shape: after the nil ``cancel`` call panics, deferred functions
    on the way out read other state (Go runs defers while the panic unwinds). The read the panic
    followed is the one at the failing frame's own line, not the last read of the goroutine."""
    from fuzzfarm.gosim.trace_slice import failure_slice

    def program():
        c = _Checker()
        try:
            c.cancel()
        finally:  # a deferred function: runs while the panic unwinds
            assert c.stopped is False

    rep = gosim.run(program, strategy=RandomStrategy(1), trace=True)
    assert rep.failure is not None and rep.failure.kind == "goroutine panic"
    reads = [e.objs for e in rep.trace.events if e.kind == "read"]
    assert reads[-1] == ("_Checker.stopped",), reads  # the deferred read came last
    sl = failure_slice(rep.trace.events, rep.failure)
    assert sl.objects[0] == "_Checker.cancel", sl.objects
