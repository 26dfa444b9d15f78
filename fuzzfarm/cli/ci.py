"""``fuzzfarm ci HARNESS``: a short fuzz run for a pull request that fails only on new bugs.

    fuzzfarm ci checker --duration 60 --baseline fuzzfarm-ci/ci.json --junit j.xml --sarif f.sarif

Uses the farm given (``--redis`` / ``$FUZZFARM_REDIS_URL``) or the running local farm, else
starts a private one for the run (redis-server and two workers, stopped at the end). Fuzzes,
waits for triage, and compares the buckets with the baseline (bucket ids are the same on every
farm for the same harness, variant and signature). Exit 1 when a new bucket reproduces, 0 when
every bucket was known (or none was found), 2 on an error. Writes ``OUT/ci.json`` (a baseline
for the next run), each new bucket's reproducer under ``OUT/<bucket>``, and optionally JUnit
XML, SARIF and a Markdown summary (also appended to ``$GITHUB_STEP_SUMMARY`` when set).
"""

from __future__ import annotations

import json
import os
import re
import time
from typing import Optional

import typer

import fuzzfarm
from fuzzfarm import ci_report, views
from fuzzfarm.cli._app import (EXIT_FOUND, CLIError, _check_harness, _print_json, _state, _store, _url,
                               check_max_starvation, check_output_dir, check_output_file, check_timeout, err,
                               errors_to_exit, out, parse_duration)
from fuzzfarm.cli.bugs import print_buckets
from fuzzfarm.cli.campaigns import _submit, wait_campaigns

CAMPAIGN_ID = re.compile(r"c\d{8}[0-9a-f]{6}")


def _baseline(st, spec: str | None) -> set[str]:
    if not spec:
        return set()
    if os.path.exists(spec):
        try:
            return ci_report.read_baseline(spec)
        except ci_report.BaselineError as e:
            raise CLIError(str(e)) from None
    if CAMPAIGN_ID.fullmatch(spec):
        if st.campaign(spec) is None:
            raise CLIError(f"--baseline {spec!r}: no such campaign on this farm; pass a ci.json / JUnit / SARIF file")
        return set(st.campaign_bucket_ids(spec))
    raise CLIError(f"--baseline {spec!r} is neither a file nor a campaign id; pass the ci.json, JUnit or SARIF "
                   f"file of an earlier run, or its campaign id")


def _fail_within(text: str | None) -> float | None:
    """``ci --max-starvation``: the most starvation a new bug may need and still fail the run
    (seconds; None: no limit). 'label' is the 0.1 s realism bound. A bad value is a usage error."""
    from fuzzfarm.harness import DEFAULT_MAX_STARVATION_S, LABEL
    if text is None:
        return None
    bound = check_max_starvation(text)
    if bound == LABEL:
        return DEFAULT_MAX_STARVATION_S
    return None if bound == "none" else float(bound)


def register(app: typer.Typer) -> None:
    @app.command()
    @errors_to_exit
    def ci(harness: str = typer.Argument(..., help="Registered harness name."),
           variant: str = typer.Option("buggy", "--variant", help="Variant to fuzz."),
           duration: str = typer.Option("60", "--duration", "-d", help="Fuzzing time per job: seconds or 30s/10m."),
           jobs: int = typer.Option(2, "--jobs", "-j", help="Parallel fuzz jobs."),
           strategy: str = typer.Option("bytes", "--strategy",
                                         help="bytes | random | pct | pct:DEPTH | walk-mix | mix"),
           baseline: Optional[str] = typer.Option(None, "--baseline",
                                                  help="Known buckets: ci.json / JUnit / SARIF of an earlier run, or a campaign id."),
           junit: Optional[str] = typer.Option(None, "--junit", help="Write JUnit XML here."),
           sarif: Optional[str] = typer.Option(None, "--sarif", help="Write SARIF 2.1.0 here."),
           summary_md: Optional[str] = typer.Option(None, "--markdown", help="Write a Markdown summary here."),
           output: str = typer.Option("fuzzfarm-ci", "-o", "--output", help="Where ci.json and new reproducers go."),
           timeout: float = typer.Option(1800, "--timeout", help="Give up after this many seconds."),
           max_starvation: Optional[str] = typer.Option(
               None, "--max-starvation", metavar="SECONDS|none",
               help="Fail only on new bugs that need at most this much starvation (a goroutine kept runnable "
                    "but not running, virtual seconds; 'label': the 0.1 s realism bound). Default none: every "
                    "new bug fails. Nothing is dropped: a bug beyond it is reported, marked, and does not fail."),
           as_json: bool = typer.Option(False, "--json", help="JSON on stdout.")) -> None:
        """Fuzz HARNESS briefly, triage, and fail (exit 1) only on a new reproducible bucket."""
        from fuzzfarm.harness.target import resolve
        from fuzzfarm.farm import configure, local, redis_url
        from fuzzfarm.farm.embedded import Farm
        duration_s, fail_within = _check_ci_args(harness, variant, jobs, strategy, duration, timeout, output, baseline,
                                                  (junit, sarif, summary_md), max_starvation)
        show = err if as_json else out
        farm = None
        if redis_url.is_configured(_state.get("redis")) or local.running_url():
            url = _url()
            err.print(f"fuzzfarm ci: using the farm at {redis_url.mask(url)}", markup=False)
        else:
            err.print("fuzzfarm ci: no farm given or running; starting one for this run ...", markup=False)
            farm = Farm(fuzz_concurrency=jobs, collect_concurrency=2).start()
            url = farm.url
        try:
            _state["redis"] = url
            configure(url)
            st = _store(url)
            known = _baseline(st, baseline)
            t0 = time.monotonic()
            cid = _submit(st, harness, variant, jobs, duration_s, strategy)  # searched under the default setting
            err.print(f"fuzzfarm ci: campaign {cid}: {harness}/{variant}, {jobs} job(s) x {duration_s:g} s",
                      markup=False)
            summary = wait_campaigns(st, [cid], timeout=timeout, console=err)[cid]
            if summary["status"] == "failed":
                raise CLIError(f"campaign {cid} failed: {'; '.join(summary['errors']) or 'every job failed'}")
            rows = views.bucket_rows(st, cid)  # one verdict per root-cause group
            verdicts = ci_report.verdicts(rows, known, fail_within)
            replay = _download_new(st, verdicts, output)
            print_buckets(st, cid, console=show)
            report = _write_reports(cid, f"{harness}/{variant}", resolve(harness).path, verdicts, replay, known,
                                    fail_within, summary, time.monotonic() - t0, output, junit, sarif, summary_md,
                                    duration_s, jobs)
            st.close()
        finally:
            if farm is not None:
                farm.cleanup()
        if as_json:
            _print_json(report)
        else:
            _say(report, verdicts, output, fail_within)
        if report["new_reproducible"]:
            raise typer.Exit(EXIT_FOUND)


def _check_ci_args(harness, variant, jobs, strategy, duration, timeout, output, baseline, reports, max_starvation):
    """(fuzzing seconds, the --max-starvation a new bug fails within): every usage error is said
    here, before any farm is started."""
    duration_s = parse_duration(duration)
    check_timeout(timeout)
    check_output_dir(output)
    for path, opt in zip(reports, ("--junit", "--sarif", "--markdown")):
        check_output_file(path, opt)  # an unwritable report path is said now, not after the run
    if strategy == "dfs":  # _check_usage's list names dfs: submit takes it, ci does not
        raise CLIError("fuzzfarm ci does not run --strategy dfs; an exhaustive search is "
                       "`fuzzfarm submit --strategy dfs` or `fuzzfarm explore`; use mix, bytes, random or pct here")
    _check_harness(harness, variant, jobs, strategy)
    fail_within = _fail_within(max_starvation)
    if baseline and not CAMPAIGN_ID.fullmatch(baseline):
        _baseline(None, baseline)  # a bad baseline file is reported before any farm is started
    return duration_s, fail_within


def _download_new(st, verdicts: list[dict], output: str) -> dict[str, str]:
    """Each new bucket's reproducer under ``output``; bucket id -> its replay command."""
    os.makedirs(output, exist_ok=True)
    replay = {}
    for v in verdicts:
        for r in v["buckets"]:
            if v["new"] and st.artifact(r["id"]):
                d = os.path.join(output, r["id"])
                views.download_bucket(st, r["id"], d)
                replay[r["id"]] = f"fuzzfarm replay {d}"
    return replay


def _write_reports(cid, target, harness_path, verdicts, replay, known, fail_within, summary, elapsed_s, output,
                   junit, sarif, summary_md, duration_s, jobs) -> dict:
    """``OUTPUT/ci.json`` (returned) and the JUnit, SARIF and Markdown asked for."""
    report = {"campaign": cid, "target": target, "summary": {k: summary.get(k) for k in (
        "execs", "crashes", "buckets", "status", "first_reproducer_s")},
              "elapsed_s": round(elapsed_s, 1), "baseline": sorted(known),
              "buckets": [{**r, "new": v["new"], "fails": v["fails"], "replay": replay.get(r["id"])}
                          for v in verdicts for r in v["buckets"]],
              "new_reproducible": sum(1 for v in verdicts if v["fails"]),
              "max_starvation_s": fail_within,
              "new_over_max_starvation": sum(1 for v in verdicts if v["new"] and v["reproducible"] and not v["within"])}
    with open(os.path.join(output, "ci.json"), "w") as f:
        json.dump(report, f, indent=1, sort_keys=True, default=str)
    if junit:
        ci_report.write_junit(junit, target=target, campaign=cid, verdicts_=verdicts, replay=replay,
                              summary=summary)
    if sarif:
        doc = ci_report.sarif(target=target, harness_path=harness_path, campaign=cid,
                              verdicts_=verdicts, replay=replay, version=fuzzfarm.__version__)
        with open(sarif, "w") as f:
            json.dump(doc, f, indent=1)
    md = ci_report.markdown(target=target, campaign=cid, summary=summary, verdicts_=verdicts, replay=replay,
                            duration_s=duration_s, jobs=jobs)
    if summary_md:
        with open(summary_md, "w") as f:
            f.write(md)
    if os.environ.get("GITHUB_STEP_SUMMARY"):
        with open(os.environ["GITHUB_STEP_SUMMARY"], "a") as f:
            f.write(md)
    return report


def _say(report: dict, verdicts: list[dict], output: str, fail_within) -> None:
    """The run's result in one line (and one more for new bugs beyond --max-starvation)."""
    # bugs are root-cause groups (one verdict each); buckets are counted apart, never mixed in
    new_buckets = sum(len(v["buckets"]) for v in verdicts if v["fails"])
    known_buckets = sum(len(v["buckets"]) for v in verdicts if not v["new"])
    out.print(f"fuzzfarm ci: {report['new_reproducible']} new reproducible bug(s) ({new_buckets} bucket(s)), "
              f"{sum(1 for v in verdicts if not v['new'])} known bug(s) ({known_buckets} bucket(s)); results "
              f"in {output}/ci.json (a baseline for the next run: --baseline {output}/ci.json)", markup=False)
    if report["new_over_max_starvation"]:
        out.print(f"fuzzfarm ci: {report['new_over_max_starvation']} more new reproducible bug(s) need more "
                  f"starvation than --max-starvation {fail_within:g} s: reported above, not failing the run",
                  markup=False)
