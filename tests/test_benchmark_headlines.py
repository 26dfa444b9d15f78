"""docs/BENCHMARKS.md's generator (benchmarks/run_all.py) leads with the default mix, timed from
launch to a verified bucket, and labels best-single-strategy figures and every ratio's terms.
Synthetic section data: the measured suite is in the slow tier (tests/test_benchmarks_smoke.py)."""

from __future__ import annotations

from benchmarks import common as C
from benchmarks import run_all


def _strategy(ff, verified, found=3):
    return {"first_failure_s": ff, "first_failure_censored": False, "found": found, "of": 3, "per_seed": [],
            "verified_s": verified, "verify": {"minimize_s": 1.0, "verify_s": 2.0, "reproducible": True, "n": 10,
                                               "size": "9 -> 3"}}


def _portfolio_section():
    case = {"case": "checker", "strategies": {"mix": _strategy(0.4, 3.4), "pct:3": _strategy(0.35, 3.3),
                                              "bytes": _strategy(1.6, 4.6)},
            "stress": {"first_failure_s": 0.5, "first_failure_censored": False, "found": 3, "of": 3, "per_seed": []},
            "best_single": "pct:3", "mix_over_best_verified": 1.03, "mix_over_best_first_failure": 1.14,
            "best_single_first_failure": "pct:3",
            "mix_over_stress_first_failure": "0.8"}
    data = {"cases": [case], "distinct": [
        {"toy": "late_cancel", "strategy": "mix", "fresh": True, "seconds": 5, "execs": 100, "distinct": 100,
         "distinct_per_s": 20.0, "distinct_share": 1.0},
        {"toy": "late_cancel", "strategy": "mix", "fresh": False, "seconds": 5, "execs": 100, "distinct": 30,
         "distinct_per_s": 6.0, "distinct_share": 0.3}], "peers_file": "benchmarks/peers.json",
        "peers_recorded": False, "seeds": [1], "budget_s": 10, "verify_n": 10}
    from benchmarks import portfolio
    return C.section("portfolio", "t", C.profile(True), {}, portfolio.rows(data), data, [], 0.0)


def test_headlines_lead_with_the_mix_from_launch_to_verified_and_label_the_rest(tmp_path):
    lines = run_all.headlines([_portfolio_section()])
    assert lines[0].startswith("checker: default `mix`, launch → first failure 0.4 s, launch → verified bucket 3.4 s")
    assert "mix ÷ Python-thread stress (first failure, s/s) 0.8" in lines[0]
    best = next(ln for ln in lines if "best single strategy" in ln)
    assert lines.index(best) > 0 and "chosen after the fact" in best and "mix ÷ best single (verified, s/s) 1.03" in best
    assert any("no peer figure recorded" in ln for ln in lines)
    doc = tmp_path / "B.md"
    meta = {"machine": C.machine(), "started": "now", "wall_s": 1.0, "loadavg_end": [0, 0, 0],
            "machine_busy_share": 0.5, "suite_cpu_s": 1.0, "other_cpu_s": 0.0, "other_cores_avg": 0.0}
    run_all.write_doc(str(doc), [_portfolio_section()], meta, "python -m benchmarks", C.profile(True))
    text = doc.read_text()
    head = text[text.index("## Headlines"):]
    assert head.index("default `mix`") < head.index("best single strategy")


def test_the_suite_rewrite_keeps_every_marked_section_and_drops_hand_written_ones(tmp_path):
    """The dfs and race-cost sections are written by their own commands; a suite rewrite must
    keep them, and must drop anything else (a hand-written section the run replaces)."""
    from benchmarks import run_all

    doc = tmp_path / "B.md"
    doc.write_text("# x\n\n## by hand\nstale figure 9.99\n\n<!-- dfs_bench -->\n## dfs\n1,374 schedules\n"
                   "<!-- /dfs_bench -->\n\n<!-- race_cost -->\n## race\n1.12×\n<!-- /race_cost -->\n")
    kept = "\n".join(run_all._kept_sections(str(doc)))
    assert "1,374 schedules" in kept and "1.12×" in kept
    assert "stale figure" not in kept
    assert kept.index("<!-- race_cost -->") < kept.index("<!-- dfs_bench -->")  # KEPT order, not file order


def test_end_to_end_headline_names_the_fix_verdict_apart_from_the_end_of_triage():
    # end_to_end's "verified" mark is the end of triage (proof, final artifact); the headline must
    # not call that time "verified", and must quote the fix-verdict time (issue 16, goal 4)
    data = {"harnesses": [{"harness": "checker", "strategy": "(farm default)", "jobs": 2,
                           "marks": {"downloadable": 1.1, "reproducible": 3.8, "fix_checked": 3.9,
                                     "verified": 35.1, "replayed": 36.4}}]}
    sec = C.section("end_to_end", "t", C.profile(True), {}, [], data, [], 0.0)
    line = next(ln for ln in run_all.headlines([sec]) if "end to end" in ln)
    assert "verified + fix-checked (fix verdict stored) 3.9 s" in line
    assert "triage done (proof, final artifact) 35.1 s" in line
    assert "verified 35.1" not in line


def test_fuzzfarm_over_real_go_stress_leads_the_headlines(tmp_path):
    """Issue 28: the real-Go stress baseline replaces the Python-thread stress at the top; the
    older one stays, labelled, in the mix line after it."""
    from test_go_stress_bench import _case

    from benchmarks import go_stress as GS

    data = {"cases": [_case("checker", go_found=2)], "budgets": {**GS.QUICK, "seeds": [1]}, "go": "go1.27"}
    gs = C.section("go_stress", "t", C.profile(True), {}, GS.rows(data), data, [], 0.0)
    lines = run_all.headlines([_portfolio_section(), gs])
    assert lines[0].startswith("checker: fuzzfarm ÷ real-Go stress 0.0533 (first failure)")
    mix = next(i for i, ln in enumerate(lines) if "default `mix`" in ln)
    assert mix > 0 and "Python-thread stress (the older baseline" in lines[mix]


def test_farm_scaling_headline_quotes_efficiency_in_execs_labelled():
    """Issue 33 asks for 2-worker farm efficiency in execs (>= 0.9): the headline quotes that
    figure, side by side first, labelled, not the execs ratio against one bare process."""
    def farm(c, seq, cpu, ratio):
        return {"c": c, "execs_ratio_vs_bare": ratio, "cpu": {"outside_share": 0.02},
                "efficiency": {"execs": seq, "cpu": cpu}}
    data = {"farms": [farm(1, 1.58, 0.99, 1.6), farm(2, 0.78, 0.98, 1.7)],
            "beside": [{**farm(2, 1.02, 0.98, 1.9), "bare_beside": {"execs": 1}}]}
    sec = C.section("farm_scaling", "t", C.profile(True), {}, [], data, [], 0.0)
    lines = [ln for ln in run_all.headlines([sec]) if ln.startswith("farm with")]
    one, two = lines
    assert "farm efficiency in execs 1.02 with 2 bare atheris process(es) at the same time (goal >= 0.9 at 2)" in two
    assert "0.78 against bare ones run after it" in two and "CPU efficiency 0.98" in two
    assert "x1.70 the execs of one bare process" in two
    assert "farm efficiency in execs 1.58 against 1 bare atheris process(es) run after it" in one


def test_end_to_end_prints_fuzzfarm_ci_as_a_ratio_beside_the_campaign_of_its_seed_and_length():
    from benchmarks import end_to_end as E
    camp = {"harness": "checker", "variant": "buggy", "duration_s": 20.0, "jobs": 2, "marks": {"settled": 45.0},
            "error": None}
    ci = {"harness": "checker", "variant": "buggy", "duration_s": 20.0, "jobs": 2, "collector": "now",
          "collector_how": "collect -c 2", "wall_s": 41.0, "x_duration": 2.05, "rc": 1, "buckets": 2,
          "new_reproducible": 1, "elapsed_s": 38.2, "load_before": 1.0, "load_after": 2.0, "error": None}
    data = {"campaigns": [{**camp, "collector": "last round"}, {**camp, "collector": "now"},
                          {**camp, "collector": "now", "duration_s": 60.0}], "ci": [ci]}
    rows = E.campaign_rows(data)
    i = next(n for n, r in enumerate(rows) if "`fuzzfarm ci`" in r[0])
    assert rows[i][2].startswith("41 s (x2.05); exit 1") and "20 s x 2 job(s)" in rows[i][0]
    assert "collector now" in rows[i - 1][0] and sum("`fuzzfarm ci`" in r[0] for r in rows) == 1
