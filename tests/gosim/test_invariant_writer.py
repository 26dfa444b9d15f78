"""An invariant failure (the harness's own assertion, not a Go panic) names the last Go function
that wrote the race-checked state the assertion read (fuzzfarm/gosim/invariant.py), in the dump,
in trace.txt (leading it) and in failure.txt. The program (invariant_program.py) records outside
gosim which function really wrote last: the report must agree with it on every failing schedule."""

from __future__ import annotations

import json

from invariant_program import WRITES, main

from fuzzfarm import gosim
from fuzzfarm.collector.artifact import build_artifact
from fuzzfarm.examples import load
from fuzzfarm.harness.runone import outcome
from fuzzfarm.strategies import RandomStrategy

GO_LINE = {"(*Store).Add": "(*Store).Add (store.go:14)", "(*Store).Compact": "(*Store).Compact (store.go:22)"}


def test_the_named_writer_is_the_last_one_on_every_failing_schedule():
    named = []
    for seed in range(16):
        rep = gosim.run(main, strategy=RandomStrategy(seed), trace=True)
        f = rep.failure
        if f is None:
            continue
        assert f.exc_class == "AssertionError", f.render()
        last = WRITES[-1]
        assert f.written_by.startswith("invariant: the assertion at invariant_program.py:63 read\n"), f.written_by
        assert f"Store.total: last written by G" in f.written_by and GO_LINE[last] in f.written_by, (last, f.written_by)
        assert f.checked_state == ["Store.total"]
        assert f.written_by in f.render()
        named.append(last)
    # both functions were the last writer on some failing schedule: the answer is not a constant
    assert set(named) == set(GO_LINE), named


def test_only_the_state_on_the_assertions_line_is_named():
    for seed in range(16):
        rep = gosim.run(main, True, strategy=RandomStrategy(seed), trace=True)
        if rep.failure is not None:
            break
    assert rep.failure is not None
    # main read Store.adds just before, on another line: that is not what the assertion checks
    assert "Store.total" in rep.failure.written_by and "Store.adds" not in rep.failure.written_by


def test_an_assertion_on_plain_python_state_says_it_cannot_name_a_writer():
    mod = load("hc15")
    for seed in range(50):
        rep = gosim.run(mod.buggy, strategy=RandomStrategy(seed), trace=True, **mod.RUN_KW)
        if rep.failure is not None:
            break
    assert rep.failure.exc_class == "AssertionError"
    assert "read no race-checked state" in rep.failure.written_by


def test_failure_txt_and_trace_txt_name_the_writer():
    for n in range(64):
        data = bytes([n, n * 7 % 256, n * 13 % 256, 255 - n] * 6)
        out = outcome("invariant", "buggy", data, trace=True, module="invariant_program")
        if out["failed"] and WRITES[-1] == "(*Store).Compact":
            break
    assert out["failed"] and WRITES[-1] == "(*Store).Compact", out
    files = build_artifact(bucket={"id": "b1"}, original=data, minimized=data, outcome=out, harness_hash="h",
                           version="v")
    failure, trace = files["failure.txt"].decode(), files["trace.txt"].decode()
    assert "invariant: the assertion at invariant_program.py:63 read" in failure
    assert "Store.total: last written by G3 [compact] at (*Store).Compact (store.go:22)" in failure
    assert failure.index("invariant:") < failure.index("crash state")  # in the head, before the stacks
    assert trace.startswith("failure: goroutine panic: AssertionError")
    assert trace.index("(*Store).Compact (store.go:22)") < trace.index("full timeline:")
    tj = json.loads(files["trace.json"])
    sl = tj["slice"]
    assert sl["objects"] == ["Store.total"] and sl["events"]
    assert all(tj["events"][i][4] == "failure" or tj["events"][i][5] == "Store.total" or tj["events"][i][3] == 1
               for i in sl["events"])


def test_a_run_without_the_race_detector_names_no_writer_of_an_earlier_run():
    total = gosim.Var("total", 0)  # kept across runs, as a package-level Go variable

    @gosim.go_func("setTotal", "vars.go:3")
    def set_total(v):
        total.store(v)

    def writes():
        gosim.go(set_total, 5)
        gosim.sleep(1)

    def checks():
        assert total.load() == 0, "total was set"

    assert gosim.run(writes, strategy=RandomStrategy(0), trace=True).failure is None  # the detector saw the write
    f = gosim.run(checks, strategy=RandomStrategy(0), trace=True, race=False).failure
    assert "setTotal" not in f.written_by and "total: no write recorded" in f.written_by, f.written_by
