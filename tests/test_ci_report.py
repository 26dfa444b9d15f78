"""fuzzfarm ci's verdict and reports on bucket records: which buckets fail the run, and that
every report written can be read back as the next run's baseline."""

from __future__ import annotations

import json

import pytest
from junitparser import Failure, JUnitXml, Skipped

from fuzzfarm import ci_report as R


def row(bid, *, repro=True, kind="goroutine panic", fixed=True, keeps=False):
    return {"id": bid, "kind": kind, "crash_type": f"{kind} (TypeError)", "signature": "s" + bid,
            "crash_state": ["ObjectChecker.stop", "CheckerMap.add"], "reproducible": repro,
            "verify_ok": 10 if repro else 3, "verify_n": 10, "fixed": fixed, "fix_keeps": keeps}


ROWS = [row("b1"), row("b2"), row("b3", repro=False), row("b4", keeps=True, fixed=False)]


def test_only_new_reproducible_buckets_fail_the_run():
    v = {x["buckets"][0]["id"]: x for x in R.verdicts(ROWS, {"b2"})}
    assert [k for k, x in v.items() if x["fails"]] == ["b1", "b4"]  # a kept hazard is still a new bug here
    assert v["b2"]["new"] is False and v["b3"]["new"] is True and v["b3"]["fails"] is False
    assert not any(x["fails"] for x in R.verdicts(ROWS, {"b1", "b2", "b3", "b4"}))


@pytest.mark.parametrize("fmt", ["junit", "sarif", "json"])
def test_each_report_is_a_baseline_holding_every_bucket_of_the_run(tmp_path, fmt):
    v = R.verdicts(ROWS, {"b2"})
    replay = {"b1": "fuzzfarm replay out/b1", "b4": "fuzzfarm replay out/b4"}
    path = tmp_path / f"report.{fmt}"
    if fmt == "junit":
        R.write_junit(str(path), target="checker/buggy", campaign="c1", verdicts_=v, replay=replay,
                      summary={"execs": 5})
    elif fmt == "sarif":
        path.write_text(json.dumps(R.sarif(target="checker/buggy", harness_path=None, campaign="c1", verdicts_=v,
                                           replay=replay, version="0")))
    else:
        path.write_text(json.dumps({"buckets": [{"id": r["id"]} for r in ROWS[1:]], "baseline": ["b1"]}))
    assert R.read_baseline(str(path)) == {"b1", "b2", "b3", "b4"}


def test_junit_fails_new_reproducible_buckets_with_their_replay_command(tmp_path):
    path = tmp_path / "j.xml"
    R.write_junit(str(path), target="checker/buggy", campaign="c1", verdicts_=R.verdicts(ROWS, {"b2"}),
                  replay={"b1": "fuzzfarm replay out/b1"}, summary={"execs": 5})
    (suite,) = JUnitXml.fromfile(str(path))
    assert suite.tests == 4 and suite.failures == 2 and suite.skipped == 1
    cases = {c.name.split()[0]: c for c in suite}
    (f,) = cases["b1"].result
    assert isinstance(f, Failure) and "fuzzfarm replay out/b1" in f.text and "ObjectChecker.stop" in f.message
    assert cases["b2"].result == [] and isinstance(cases["b3"].result[0], Skipped)


def test_sarif_has_one_result_per_new_bucket():
    doc = R.sarif(target="checker/buggy", harness_path=None, campaign="c1", verdicts_=R.verdicts(ROWS, {"b2"}),
                  replay={"b1": "fuzzfarm replay out/b1"}, version="0")
    assert doc["version"] == "2.1.0"
    res = {r["partialFingerprints"][R.FINGERPRINT]: r for r in doc["runs"][0]["results"]}
    assert set(res) == {"b1", "b3", "b4"}
    assert res["b1"]["level"] == "error" and res["b3"]["level"] == "warning"
    assert res["b1"]["properties"]["replay_command"] == "fuzzfarm replay out/b1"
    assert {r["ruleId"] for r in res.values()} <= {x["id"] for x in doc["runs"][0]["tool"]["driver"]["rules"]}


def test_markdown_summary_counts_new_bugs():
    md = R.markdown(target="checker/buggy", campaign="c1", summary={"execs": 1234, "crashes": 7},
                    verdicts_=R.verdicts(ROWS, {"b2"}), replay={}, duration_s=30, jobs=2)
    assert md.startswith("### fuzzfarm ci checker/buggy: 2 new reproducible bug(s)")
    assert "1,234 execs" in md and md.count("| new |") == 2 and "| known |" in md


@pytest.mark.parametrize("text", ["not a report", "{\"foo\": 1}", "<notjunit"])
def test_a_bad_baseline_is_one_clear_error(tmp_path, text):
    p = tmp_path / "b"
    p.write_text(text)
    with pytest.raises(R.BaselineError, match="baseline"):
        R.read_baseline(str(p))


def test_one_verdict_per_root_cause_group():
    rows = [{"id": "b1", "group": "g1", "reproducible": True}, {"id": "b2", "group": "g1", "reproducible": False},
            {"id": "b3", "group": None, "reproducible": True}]
    v = R.verdicts(rows, {"b2"})
    assert [[b["id"] for b in x["buckets"]] for x in v] == [["b1", "b2"], ["b3"]]
    # b1 is new, but its group was known through b2: the run does not fail on it
    assert [x["fails"] for x in v] == [False, True]


def test_junit_has_one_case_per_group_and_reads_back_every_bucket(tmp_path):
    rows = [{**row("b1"), "group": "g1"}, {**row("b2"), "group": "g1"}, {**row("b3"), "group": None}]
    path = str(tmp_path / "j.xml")
    R.write_junit(path, target="checker/buggy", campaign="c1", verdicts_=R.verdicts(rows, set()),
                  replay={"b1": "fuzzfarm replay ci/b1"}, summary={"execs": 5})
    (suite,) = JUnitXml.fromfile(path)
    assert suite.tests == 2 and suite.failures == 2  # one per group
    assert R.read_baseline(path) == {"b1", "b2", "b3"}  # the group's other bucket is known next time


def test_max_starvation_fails_only_on_bugs_within_it_and_drops_nothing(tmp_path):
    """``ci --max-starvation S``: a new reproducible bug whose minimized reproducer needs more
    starvation than S is reported (JUnit skipped with why, SARIF warning, Markdown marked) and
    does not fail the run; one within S, or of unknown starvation, still fails."""
    starved = {**row("s1"), "starvation_s": 1.0, "starved": [[2, "processor.run"]]}
    rows = [starved, {**row("r1"), "starvation_s": 0.0}, row("u1")]
    v = {x["buckets"][0]["id"]: x for x in R.verdicts(rows, set(), 0.1)}
    assert [k for k, x in v.items() if x["fails"]] == ["r1", "u1"] and v["s1"]["needs"] == 1.0
    assert all(x["fails"] for x in R.verdicts(rows, set()))  # no limit: every new reproducible bug fails
    assert R.verdicts(rows, set(), 1.0)[0]["fails"]  # within 1 s
    vs = R.verdicts(rows, set(), 0.1)
    R.write_junit(str(tmp_path / "j.xml"), target="examples/buggy", campaign="c1", verdicts_=vs, replay={},
                  summary={"execs": 1})
    (case,) = [c for s in JUnitXml.fromfile(str(tmp_path / "j.xml")) for c in s if c.name.startswith("s1")]
    (res,) = case.result
    assert isinstance(res, Skipped) and "needs G2 (processor.run) runnable but not running for 1 s" in res.message
    doc = R.sarif(target="examples/buggy", harness_path=None, campaign="c1", verdicts_=vs, replay={}, version="0")
    levels = {r["properties"]["bucket"]: r["level"] for r in doc["runs"][0]["results"]}
    assert levels == {"s1": "warning", "r1": "error", "u1": "error"}
    md = R.markdown(target="examples/buggy", campaign="c1", summary={}, verdicts_=vs, replay={}, duration_s=1, jobs=1)
    assert "| new, over --max-starvation | `s1`" in md and "over the 0.1 s realism bound" in md
