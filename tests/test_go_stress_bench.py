"""benchmarks/go_stress.py's arithmetic: a trial that did not find the bug is a lower bound, so a
median landing on one prints '> x' and a ratio against it '< r'; dropping the censoring would
turn "real Go did not find it in 15 s" into "real Go took 15 s". Also the -count run's reading of
Go's test timeout (a hang or the cap running out) and the doc's headline order. Synthetic trial
records: the measured run is tests/test_benchmarks_smoke.py's (real Go) and the benchmark itself."""

from __future__ import annotations

from benchmarks import common as C
from benchmarks import go_stress as GS
from benchmarks import run_all


def _t(found, seconds, runs=1):
    return {"found": found, "seconds": seconds, "runs": runs}


def test_a_median_on_a_censored_trial_is_a_lower_bound_and_its_ratio_an_upper_bound():
    go = GS.summarize([_t(True, 1.0), _t(False, 15.0), _t(False, 15.0)], "seconds")
    assert go == {"median": 15, "censored": True, "found": 1, "of": 3}
    assert C.fmt_censored(go["median"], go["censored"], " s") == "> 15 s"
    r = GS.ratio({"median": 0.8, "censored": False}, go)
    assert r.startswith("< ") and r == "< 0.0533"
    # fuzzfarm not found against real Go found: fuzzfarm's side is the lower bound
    assert GS.ratio({"median": 60.0, "censored": True}, {"median": 0.05, "censored": False}).startswith("> ")
    assert GS.ratio({"median": 60.0, "censored": True}, go) == "both not found"


def test_censored_trials_order_after_every_found_one_whatever_they_spent():
    # a trial cut at 5 s is not "faster" than one that found the bug at 30 s
    s = GS.summarize([_t(True, 20.0), _t(True, 30.0), _t(False, 5.0)], "seconds")
    assert (s["median"], s["censored"]) == (30, False)
    even = GS.summarize([_t(True, 1.0), _t(False, 15.0)], "seconds")
    assert (even["median"], even["censored"]) == (8, True)
    runs = GS.summarize([_t(True, 0.1, 3), _t(True, 0.2, 4), _t(True, 0.3, 5)], "runs")
    assert (runs["median"], runs["censored"], runs["found"]) == (4, False, 3)


def _fresh(found, of, med, cens):
    return {"seconds": {"median": med, "censored": cens, "found": found, "of": of}}


def test_the_ratio_takes_the_gomaxprocs_that_found_it_and_missed_means_under_half_at_both():
    fresh = {1: _fresh(0, 4, 15.0, True), 2: _fresh(3, 4, 40.0, False)}
    assert GS.best_procs(fresh) == 2  # P=1's "> 15 s" is not better than P=2's 40 s
    assert GS.best_procs({1: _fresh(4, 4, 0.3, False), 2: _fresh(4, 4, 0.2, False)}) == 2
    assert not GS.missed({"go": {"fresh": fresh}})
    assert not GS.missed({"go": {"fresh": {1: _fresh(2, 4, 9.0, True), 2: _fresh(0, 4, 15.0, True)}}})
    assert GS.missed({"go": {"fresh": {1: _fresh(1, 4, 15.0, True), 2: _fresh(1, 4, 15.0, True)}}})


def test_the_per_run_rate_counts_every_run_of_every_trial_and_says_nothing_without_a_hit():
    r = GS.rate([_t(True, 1.0, 10), _t(False, 9.0, 90)], window_s=60.0)
    assert (r["hits"], r["runs"], r["per_run"], r["seconds_per_run"]) == (1, 100, 0.01, 0.1)
    assert r["p_window"] == round(1 - 0.99 ** 600, 3)
    assert GS.rate([_t(False, 15.0, 150)])["p_window"] is None


RUN = "=== RUN   TestScenario\n--- PASS: TestScenario (0.00s)\n"


def test_a_count_run_tells_a_hang_from_the_cap_running_out_by_the_running_iteration_age():
    # testing.go's alarm: "panic: test timed out after D\nrunning tests:\n\tName (age rounded to 1 s)"
    r = GS.count_outcome(2, RUN * 500 + "=== RUN   TestScenario\npanic: test timed out after 18s\n"
                            "running tests:\n\tTestScenario (0s)\n", 18.0, 15.0, 3.0)
    assert r == {"found": False, "iterations": 500, "seconds": 18.0}
    hang = GS.count_outcome(2, RUN * 7 + "=== RUN   TestScenario\npanic: test timed out after 18s\n"
                               "running tests:\n\tTestScenario (18s)\n", 18.0, 15.0, 3.0)
    assert hang["found"] and hang["kind"] == "deadlock" and hang["iterations"] == 8
    assert hang["seconds"] == 3.0  # the hang began at 0 s (Go rounds the age to the second); counted from 3 s
    assert GS._go_duration("1m3.5s") == 63.5 and GS._go_duration("450ms") == 0.45
    panic = GS.count_outcome(2, RUN * 2 + "=== RUN   TestScenario\npanic: runtime error: nil pointer\n", 0.2, 15, 3)
    assert panic["found"] and panic["kind"] == "panic" and panic["iterations"] == 3
    assert GS.count_outcome(0, RUN * 50 + "PASS\n", 0.3, 15, 3) == {"found": False, "iterations": 50, "seconds": 0.3}


def _case(label="examples hc19", go_found=0):
    fresh = {p: {"runs": {"median": 140, "censored": go_found == 0, "found": go_found, "of": 2},
                 "seconds": {"median": 15.0, "censored": go_found == 0, "found": go_found, "of": 2},
                 "kinds": {}, "rate": GS.rate([_t(False, 15.0, 140)] * 2), "trials": []} for p in GS.PROCS}
    go = {"build_s": 9.0, "best_procs": 1, "fresh": fresh,
          "count": {p: {"found": False, "iterations": 5000, "seconds": 15.0} for p in GS.PROCS},
          "fixed": {p: {"runs": 50, "clean": 50, "messages": {}} for p in GS.PROCS}}
    ff = {"first_failure": {"median": 0.8, "censored": False, "found": 3, "of": 3},
          "verified": {"median": 4.0, "censored": False, "found": 3, "of": 3},
          "py_stress": {"median": 1.2, "censored": False, "found": 1, "of": 1}, "per_seed": []}
    rec = {"case": label, "go": go, "fuzzfarm": ff}
    rec["ratio_first_failure"] = GS.ratio(ff["first_failure"], fresh[1]["seconds"])
    rec["ratio_verified"] = GS.ratio(ff["verified"], fresh[1]["seconds"])
    rec["missed_by_real_go"] = GS.missed(rec)
    return rec


def test_the_suite_headlines_lead_with_fuzzfarm_over_real_go_stress_and_keep_the_bound():
    data = {"cases": [_case()], "budgets": {**GS.QUICK, "seeds": [1]}, "go": "go1.27"}
    sec = C.section("go_stress", "t", C.profile(True), {}, GS.rows(data), data, [], 0.0)
    assert all(len(r) == 3 for r in sec["rows"])
    lines = run_all.headlines([sec])
    assert lines[0].startswith("examples hc19: fuzzfarm ÷ real-Go stress < 0.0533 (first failure) and < 0.267 "
                               "(verified reproducer)")
    assert "> 15.0 s to the first manifestation (0/2 trials)" in lines[0]
    assert GS.hard_cases(data)[0].startswith("examples hc19: real-Go stress found it in 0/2 trials")


def test_the_standalone_section_replaces_its_earlier_self_under_the_title(tmp_path):
    doc = tmp_path / "B.md"
    doc.write_text("# fuzzfarm benchmarks\n\nsuite intro\n")
    GS.write_doc(str(doc), f"{GS.BEGIN}\nfirst\n{GS.END}\n")
    GS.write_doc(str(doc), f"{GS.BEGIN}\nsecond\n{GS.END}\n")
    text = doc.read_text()
    assert text.startswith("# fuzzfarm benchmarks\n\n<!-- go_stress -->\nsecond\n")
    assert "first" not in text and text.count(GS.BEGIN) == 1 and text.rstrip().endswith("suite intro")


def test_bad_arguments_are_one_line_and_exit_2_before_any_run(go, capsys, tmp_path):
    """Bad arguments to the Go benchmarks are refused up front (a run is minutes long, and --doc was
    only written after it): one line, exit 2, no traceback. The Go check comes first, so with no Go
    installed the refusal is about Go; these need the `go` fixture's Go."""
    from benchmarks import go_twin_runs as GT
    cases = [(GS.main, ["--seeds", "x"], "--seeds must be integers"),
             (GS.main, ["--doc", str(tmp_path / "no" / "such" / "B.md")], "not a writable file path"),
             (GS.main, ["--doc", str(tmp_path)], "not a writable file path"),
             (GT.main, ["--procs", "0"], "--procs must be positive"),
             (GT.main, ["--procs", "a"], "--procs must be positive"),
             (GT.main, ["--timeout", "0"], "--timeout must be a positive"),
             (GT.main, ["--timeout", "nan"], "--timeout must be a positive")]
    for main, argv, says in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and says in err[0], (argv, err)
