"""A data race found in a generated port reads as Go wrote it, in every view.

testdata/pool: a field ``done`` beside a method ``Done`` (the port renames the field
``done_field``: Python has one namespace for both); a worker's ``(*Pool).record`` writes it while
``TestScenario`` reads it through ``Done``. ``go test -race`` reports that race (Write in
``(*Pool).record``, Previous read in ``(*Pool).Done``); ``-tags fixed`` passes (checked when the
program was written). The port must name the location ``Pool.done``, and its crash state must be
the two access sites, each with its own Go function beside its own Python one: a view that paired
the failing goroutine's stack with the sorted pair of sites showed ``TestScenario [Pool.record]``.
"""

from __future__ import annotations

import os

from fuzzfarm import views
from fuzzfarm.ci_report import markdown, verdicts
from fuzzfarm.collector import build_artifact
from fuzzfarm.collector.grouping import group_id, root_cause
from fuzzfarm.harness.runone import outcome_of_module
from fuzzfarm.harness.signature import classify

from tests.go_fixtures import go  # noqa: F401 - the fixture
from tests.goport.test_port import DATA, inputs, load, port

DONE = "example.com/pool.(*Pool).Done (record_buggy.go:10)"
RECORD = "example.com/pool.(*Pool).record (record_buggy.go:6)"


def test_a_race_on_a_renamed_field_reads_as_go_in_every_view(go, tmp_path):
    h = load(port(tmp_path, os.path.join(DATA, "pool"), "--test", "TestScenario", "--name", "pool-gen"), "harness")
    found = [(d, f) for d in inputs() if (f := h.execute(d, "buggy").failure) is not None]
    assert found, "the generated port never found the race"
    failing = set()
    for _, f in found:
        assert f.kind == "data race", f
        # the location as Go names it, never the port's attribute
        assert f.location == "Pool.done" and "done_field" not in f.detail + f.report(), f.report()
        # the crash state is the two access sites, Go beside Python, in one order
        assert f.crash_state == ["Pool.done", "Pool.record"], f.crash_state
        assert f.go_crash_state == [DONE, RECORD], f.go_crash_state
        failing.add(f.dumps[0].stack[0].func)
    assert failing == {"Pool.done", "Pool.record"}, failing  # either side second: the state is the same

    data = found[0][0]
    out = classify(outcome_of_module(h, "pool-gen", "buggy", data, trace=True))
    b = {**out, "id": "b1", "reproducible": True, "verify_ok": 10, "verify_n": 10}
    assert views.crash_frames(b) == [f"{DONE} [Pool.done]", f"{RECORD} [Pool.record]"]
    text = views.crash_state_text(b)
    assert text == f"race between {DONE} [Pool.done] / {RECORD} [Pool.record]" and " < " not in text

    # groups: named by both sides in Go's names; the key stays on the Python crash state
    key, name = root_cause(b)
    assert key == "pool-gen|buggy|op|data race|Pool.done", key
    assert name == ("pool-gen/buggy: data race between example.com/pool.(*Pool).Done / "
                    "example.com/pool.(*Pool).record"), name
    assert group_id(key) == group_id("pool-gen|buggy|op|data race|Pool.done")

    # failure.txt: the two accesses, each Go frame with its own Python function
    files = build_artifact(bucket={"id": "b1"}, original=data, minimized=data, outcome=out, harness_hash="h",
                           version="v")
    failure = files["failure.txt"].decode()
    assert f"crash state: the two racing accesses (Go, [Python]):\n  {DONE}  [Pool.done]\n  {RECORD}  [Pool.record]\n" \
        in failure, failure
    assert "innermost first" not in failure and "done_field" not in failure

    # fuzzfarm ci's summary
    md = markdown(target="pool-gen/buggy", campaign="c1", summary={}, verdicts_=verdicts([b], set()), replay={},
                  duration_s=1, jobs=1)
    assert f"race between {DONE} [Pool.done] / {RECORD} [Pool.record]" in md, md
