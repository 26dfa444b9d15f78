"""Trace and replay: every run records its decisions (always) and events (trace=True), replays
them exactly, and renders a readable timeline (goroutines with spawn sites, virtual time,
project function and line per event, preemptions marked)."""

import pytest

from fuzzfarm import gosim
from fuzzfarm.gosim import SchedulingError
from fuzzfarm.strategies import BytesStrategy, PCTStrategy, RandomStrategy, ReplayStrategy
from fuzzfarm.strategies.recording import RecordingStrategy

from gosim_helpers import fails, ok, run_bytes


def scenario():
    m = gosim.Map(name="m")
    mu = gosim.Mutex("mu")
    ch = gosim.Chan(1, name="ch")
    wg = gosim.WaitGroup("wg")
    wg.add(2)

    def writer(k):
        with mu:
            m[k] = k
        ch.send(k) if k == "a" else None
        gosim.sleep(1)
        wg.done()

    gosim.go(writer, "a")
    gosim.go(writer, "b")
    m["main"] = 0  # races with the writers unless the schedule keeps them apart
    ch.recv()
    wg.wait()


def test_trace_records_every_kind_of_event_with_site_and_time():
    rep = ok(run_bytes(scenario, b"", trace=True))
    kinds = {e.kind for e in rep.trace.events}
    assert {"go", "lock", "unlock", "map.write.begin", "map.write", "map.write.end", "send", "recv",
            "block", "wake", "timer", "wg.add", "wg.wait", "exit"} <= kinds
    go = next(e for e in rep.trace.events if e.kind == "go")
    assert go.site.startswith("scenario test_trace.py:") and go.gid == 1
    timer = next(e for e in rep.trace.events if e.kind == "timer")
    assert timer.gid == 0 and timer.now == 1.0


def test_render_shows_legend_time_sites_preemptions_and_the_dump():
    rep = run_bytes(scenario, b"\x01\x00\x01\x02\x02\x02\x01\x00", trace=True)
    text = rep.render_trace()
    assert "goroutines:" in text
    assert "G2   scenario.writer  (created by scenario (test_trace.py:" in text
    assert "t(s)" in text and "scenario.writer test_trace.py:" in text
    if rep.preemptions:
        assert ">>G" in text
    assert rep.trace.preemptions == rep.preemptions
    if rep.failure is not None:
        assert rep.failure.render() in text


def test_failure_is_an_event():
    rep = run_bytes(lambda: gosim.close(None), trace=True)
    assert rep.trace.events[-1].kind == "failure" and rep.trace.events[-1].detail == "close of nil channel"


def test_decisions_are_recorded_without_trace_and_replay_exactly():
    for data in (b"", b"\x01\x02\x03\x04\x05\x06\x07\x08", bytes(range(40, 0, -1))):
        first = run_bytes(scenario, data, trace=True)
        again = gosim.run(scenario, strategy=ReplayStrategy(first.decisions), trace=True)
        assert again.decisions == first.decisions
        assert again.trace.to_json() == first.trace.to_json()
        assert (again.failure and again.failure.to_json()) == (first.failure and first.failure.to_json())


@pytest.mark.parametrize("make", [lambda s: RandomStrategy(s), lambda s: PCTStrategy(s)])
def test_random_and_pct_runs_replay_exactly_from_their_decisions(make):
    for seed in range(30):
        first = gosim.run(scenario, strategy=make(seed), trace=True)
        again = gosim.run(scenario, strategy=ReplayStrategy(first.decisions), trace=True)
        assert again.to_json() == first.to_json()


def test_recorded_schedules_become_bytes_inputs():
    found = 0
    for seed in range(40):
        rec = RecordingStrategy(RandomStrategy(seed))
        first = gosim.run(scenario, strategy=rec, trace=True)
        again = gosim.run(scenario, strategy=BytesStrategy(bytes(rec.recorded)), trace=True)
        assert again.to_json() == first.to_json()
        found += first.failure is not None
    assert found > 0  # the race on m is found by some seeds


def test_replay_divergence_is_reported_precisely():
    def main():
        gosim.go(gosim.gosched)
        ch = gosim.Chan(2)
        ch.send(1)
        ch.send(2)
        gosim.select(gosim.recv_case(ch), gosim.recv_case(ch))

    with pytest.raises(SchedulingError, match="recorded a timer firing but no timer is pending"):
        gosim.run(main, strategy=ReplayStrategy([0]))
    with pytest.raises(SchedulingError, match="expected a goroutine choice"):
        gosim.run(main, strategy=ReplayStrategy([-1]))
    good = run_bytes(main).decisions
    assert good[-1] == -1
    with pytest.raises(SchedulingError, match="expected a data choice"):
        gosim.run(main, strategy=ReplayStrategy(good[:-1] + [1]))
    with pytest.raises(SchedulingError, match="recorded index 5 but select has only 2 options"):
        gosim.run(main, strategy=ReplayStrategy(good[:-1] + [-6]))


def test_preemptions_are_counted():
    def main():
        gosim.go(gosim.gosched)
        gosim.gosched()
        gosim.gosched()

    assert run_bytes(main, b"").preemptions == 0
    rep = run_bytes(main, b"\x01\x00")  # G2 at go, back to main at G2's gosched
    assert rep.decisions[:2] == [2, 1] and rep.preemptions == 2


def test_trace_details_contain_no_memory_addresses():
    class Key:
        pass

    def main():
        m = gosim.Map()
        m[Key()] = 1

    rep = ok(run_bytes(main, trace=True))
    assert all(" at 0x" not in e.detail for e in rep.trace.events)
    assert any("Key object>" in e.detail for e in rep.trace.events)


def test_report_json_roundtrip():
    import json

    rep = next(r for r in (gosim.run(scenario, strategy=RandomStrategy(s), trace=True) for s in range(100))
               if r.failure)
    js = rep.to_json()
    assert json.loads(json.dumps(js)) == js
    assert js["decisions"] == rep.decisions and js["failure"]["kind"] == rep.failure.kind


def test_timer_firings_are_the_schedulers_and_early_ones_are_marked():
    def main():
        gosim.go(lambda: gosim.sleep(5))
        gosim.gosched()
        gosim.sleep(1)

    # G2 runs first and sleeps; at main's gosched the options are [G1, timer]: fire it early
    rep = ok(run_bytes(main, b"\x01\x01", trace=True))
    kinds = [(e.kind, e.gid, e.site) for e in rep.trace.events if e.kind.startswith("timer") or e.kind == "wake"]
    assert kinds[0] == ("timer (early)", 0, "")
    assert all(gid == 0 and site == "" for _, gid, site in kinds)
    assert ("timer", 0, "") in kinds
