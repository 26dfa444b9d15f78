"""The swimlane drawing of a real run (the toy harness of tests/engine, in this process): one
lane per goroutine, every event drawn once, preemptions as arrows, the failing event marked,
and a link only where the runtime's records say which access set the failure up."""

from __future__ import annotations

import os
import re
import sys

import pytest

from fuzzfarm.harness.runone import outcome
from fuzzfarm.web import swimlane

ENGINE_TESTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "engine")
if ENGINE_TESTS not in sys.path:
    sys.path.insert(0, ENGINE_TESTS)

# toy inputs (tests/collector/test_collector_toy.py): concurrent map writes after preemptions,
# and the nil-cancel TypeError (no preemption, one early timer)
MAP_WRITES = bytes.fromhex("3aeb5554cbf40399a360898d98df55d7c178a8d7c402b8")
CANCEL = bytes.fromhex("497eb0766d1877f8c6f26b50")


@pytest.fixture(scope="module")
def runs():
    return {name: outcome("toy", "buggy", data, trace=True, module="toy_harness")
            for name, data in (("map", MAP_WRITES), ("cancel", CANCEL))}


def test_lanes_events_and_failure_of_a_map_race(runs):
    out = runs["map"]
    tj = out["trace_json"]
    assert out["kind"] == "concurrent map writes"
    m = swimlane.build(tj)
    # no gid-0 events in this run: exactly the legend's goroutines, with their names and creation sites
    assert [(ln.gid, ln.name, ln.created_by) for ln in m.lanes] == [(g, n, c or "") for g, n, c in tj["legend"]]
    svg = swimlane.render(m)
    assert len(re.findall(r'<g class="lane"', svg)) == len(tj["legend"])
    assert len(re.findall(r'<g class="ev', svg)) == len(tj["events"])
    assert svg.count('class="preempt"') == sum(1 for e in tj["events"] if e[4] == "preempt") == out["preemptions"]
    fails = re.findall(r'<g class="ev failing[^"]*" data-index="(\d+)" data-gid="(\d+)"', svg)
    assert fails == [(str(len(tj["events"]) - 1), str(tj["failing_goroutine"]))]


def test_map_race_links_the_other_goroutines_open_write(runs):
    tj = runs["map"]["trace_json"]
    m = swimlane.build(tj)
    assert len(m.links) == 1
    src = m.events[m.links[0].src]
    fg = tj["failing_goroutine"]
    # the racing write: another goroutine's write on the same map, begun and not ended before the failure
    assert src[3] != fg and src[4] in ("map.write", "map.write.begin") and src[5].startswith("shared[")
    later = [e for e in m.events[m.links[0].src + 1:m.failing] if e[3] == src[3] and e[4] == "map.write.end"]
    assert later == []
    assert m.links[0].dst == m.failing
    assert 'class="link"' in swimlane.render(m)


def test_only_a_write_still_open_is_linked():
    ev = lambda g, kind, detail: [0, 0, 0.0, g, kind, detail, "", False]  # noqa: E731
    events = [ev(2, "map.write.begin", "m[1]"), ev(2, "map.write", "m[1]"), ev(2, "map.write.end", "m[1]"),  # done
              ev(3, "map.write.begin", "other[1]"), ev(3, "map.write", "other[1]"),  # another map
              ev(4, "map.write.begin", "m[2]"), ev(4, "map.write", "m[2]"),  # open on m: the racing write
              ev(1, "map.read", "m"), ev(1, "failure", "concurrent map read and map write")]
    m = swimlane.build({"events": events, "legend": [[g, f"g{g}", None] for g in (1, 2, 3, 4)]})
    assert [(lk.src, lk.dst) for lk in m.links] == [(6, 8)]


def test_a_send_on_a_closed_channel_links_the_close():
    ev = lambda g, kind, detail: [0, 0, 0.0, g, kind, detail, "", False]  # noqa: E731
    events = [ev(1, "close", "other"), ev(2, "close", "done"), ev(3, "close", "other"),
              ev(1, "send", "done"), ev(1, "failure", "send on closed channel")]
    m = swimlane.build({"events": events, "legend": [[g, f"g{g}", None] for g in (1, 2, 3)]})
    assert [(lk.src, lk.dst) for lk in m.links] == [(1, 4)]
    # parked in the send and woken by the close
    events = [ev(1, "block", "chan send done"), ev(2, "close", "done"), ev(1, "failure", "send on closed channel")]
    assert [(lk.src, lk.dst) for lk in swimlane.build({"events": events, "legend": []}).links] == [(1, 2)]
    # closed by the runtime (no close event): nothing is guessed
    events = [ev(2, "close", "other"), ev(1, "send", "done"), ev(1, "failure", "send on closed channel")]
    assert swimlane.build({"events": events, "legend": []}).links == []


def test_no_link_is_guessed_for_a_nil_call(runs):
    out = runs["cancel"]
    assert out["kind"] == "goroutine panic" and out["exc_class"] == "TypeError"
    m = swimlane.build(out["trace_json"])
    assert m.links == []
    assert m.failing is not None and 'class="link"' not in swimlane.render(m)


def test_text_is_escaped():
    tj = {"events": [[1, 0, 0.0, 1, "go", "<script>x</script>", "f a.py:1", False],
                     [2, 0, 0.0, 1, "failure", "goroutine panic", "", False]],
          "legend": [[1, "main</text><script>", None]], "failing_goroutine": 1}
    svg = swimlane.render(swimlane.build(tj))
    assert "<script>" not in svg and "&lt;script&gt;" in svg
