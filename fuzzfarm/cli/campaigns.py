"""``fuzzfarm submit`` and ``fuzzfarm status``: campaigns, their live progress and their jobs."""

from __future__ import annotations

import functools
import sys
import time
from typing import Optional

import typer
from rich.console import Console
from rich.live import Live
from rich.table import Table
from rich.text import Text

import fuzzfarm
from fuzzfarm import views
from fuzzfarm.cli import tables as T
from fuzzfarm.cli._app import (EXIT_FOUND, ID_COLUMNS, CLIError, _check_harness, _fail, _print_json, _store, app,
                               check_max_starvation, check_timeout, err, errors_to_exit, out, parse_duration)


def _submit(st, harness: str, variant: str, jobs: int, duration_s: float, strategy: str,
            max_starvation: str | None = None) -> str:
    from fuzzfarm.farm import configure
    from fuzzfarm.farm.tasks import submit_campaign
    info = _check_harness(harness, variant, jobs, strategy)
    bound = check_max_starvation(max_starvation)
    configure(st.url)
    spec = {"harness": harness, "variant": variant, "jobs": jobs, "duration_s": duration_s, "strategy": strategy,
            "harness_hash": info.source_hash(), "version": fuzzfarm.__version__,
            **({} if bound is None else {"max_starvation_s": bound})}
    return submit_campaign(st, spec)


@app.command()
@errors_to_exit
def submit(harness: str = typer.Argument(..., help="Registered harness name (see `fuzzfarm harnesses`)."),
           variant: str = typer.Option("buggy", "--variant", help="Harness variant, e.g. buggy or fixed."),
           jobs: int = typer.Option(1, "--jobs", "-j", help="Parallel fuzz jobs."),
           duration: str = typer.Option("60", "--duration", "-d", help="Fuzzing time per job: seconds or 30s/10m/1h."),
           strategy: str = typer.Option("mix", "--strategy",
                                        help="mix (default: bytes + walks, reweighted by new buckets) | bytes | random "
                                             "| pct | pct:DEPTH | walk-mix | dfs (exhaustive search)"),
           wait: bool = typer.Option(False, "--wait", help="Show live progress until every bucket is verified and "
                                                            "fix-checked (proofs may still run)."),
           wait_proofs: bool = typer.Option(False, "--wait-proofs", help="With --wait: also wait for every proof."),
           timeout: float = typer.Option(0, "--timeout", help="With --wait: give up after this many seconds (0: none)."),
           bound: int = typer.Option(2, "--preemption-bound", "-k", help="dfs: most preemptions per schedule."),
           input_file: Optional[str] = typer.Option(None, "--input", help="dfs: input whose scenario to explore."),
           all_failures: bool = typer.Option(False, "--all-failures", help="dfs: go on after the first failure."),
           no_reduction: bool = typer.Option(False, "--no-reduction", help="dfs: no partial-order reduction."),
           max_starvation: Optional[str] = typer.Option(
               None, "--max-starvation", metavar="SECONDS|none",
               help="Longest virtual time a runnable goroutine may wait while the schedule fires timers early, "
                    "for every run of this campaign and its triage (default: the workers' "
                    "FUZZFARM_MAX_STARVATION_S, else 0.1; docs/timing.md)."),
           force: bool = typer.Option(False, "--force", help="dfs --wait: overwrite an existing reproducer file "
                                                             "(dfs-<harness>-<variant>.bin here)."),
           as_json: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
    """Submit a campaign; prints its id."""
    check_max_starvation(max_starvation)  # a bad value is a usage error, before anything else
    if strategy == "dfs":
        from fuzzfarm.cli import explore
        return explore.submit_dfs(harness, variant, input_file, bound, all_failures, no_reduction, wait,
                                      timeout, as_json, max_starvation=max_starvation, force=force)
    duration_s = parse_duration(duration)
    check_timeout(timeout, zero_ok=True)
    _check_harness(harness, variant, jobs, strategy)  # a typo is reported as such, Redis up or not
    st = _store()
    cid = _submit(st, harness, variant, jobs, duration_s, strategy, max_starvation)
    if not wait:
        return _print_json({"campaign": cid}) if as_json else out.print(cid)
    until = "settled" if wait_proofs else "fix_checked"
    err.print(f"campaign {cid}: {harness}/{variant}, {jobs} job(s) x {duration_s:g} s", markup=False)
    try:  # from here on Ctrl-C only stops the watching
        err.print("waiting until every bucket is " + ("verified, fix-checked and proven" if wait_proofs else
                  "verified and fix-checked (proofs may still run; --wait-proofs waits for them too)"), markup=False)
        summary = wait_campaigns(st, [cid], timeout=timeout or None, console=err, until=until)[cid]
    except KeyboardInterrupt:
        err.print(f"fuzzfarm: stopped watching; campaign {cid} goes on on the farm. Watch it with "
                  f"`fuzzfarm status {cid}` (or `fuzzfarm status --watch`), cancel it with "
                  f"`fuzzfarm cancel {cid}`", markup=False)
        raise typer.Exit(130) from None
    from fuzzfarm.cli.bugs import print_buckets  # here: --help lists submit before crashes
    if as_json:
        _print_json({"campaign": cid, "summary": summary, "buckets": views.bucket_rows(st, cid)})
    else:
        out.print(cid)
        print_buckets(st, cid)
        if summary.get("proving"):  # buckets, not searches: buckets of one proof key share one (farm/triage.py)
            err.print(f"{len(summary['proving'])} bucket(s) without their proof yet ({', '.join(summary['proving'])}): "
                      f"each one's fix verdict is stored, its bounded proof runs or waits for a slot; "
                      f"`fuzzfarm status {cid}` shows the campaign settled once every proof is stored", markup=False)
    if summary["status"] == "failed":
        raise _fail(f"campaign {cid} failed: {'; '.join(summary['errors']) or 'every job failed'}")
    if summary["buckets"]:
        raise typer.Exit(EXIT_FOUND)  # like a test runner: found a bug


def wait_campaigns(st, cids: list[str], *, timeout: float | None = None, console: Console = err,
                   poll_s: float = 0.5, until: str = "settled") -> dict[str, dict]:
    """Live progress lines until every campaign is settled (fuzzed and triaged; ``until="fix_checked"``:
    every bucket verified and fix-checked, proofs may still run): two per campaign, whole at 80
    columns (tables.progress_view)."""
    summaries: dict[str, dict] = {}
    start = time.monotonic()

    def view():
        return T.progress_view([(summaries[c], views.phase(summaries[c]), time.monotonic() - start) for c in cids])

    with Live(Text(""), console=console, auto_refresh=False, transient=False) as live:
        while True:
            for cid in cids:
                summaries[cid] = st.campaign_summary(cid)
            live.update(view(), refresh=True)
            if all(s[until] for s in summaries.values()):
                break
            if timeout and time.monotonic() - start > timeout:
                raise CLIError(f"campaign(s) not finished after {timeout:g} s; check `fuzzfarm status` and that "
                               f"workers run for both queues (fuzz, collect)")
            time.sleep(poll_s)
    return summaries


@app.command()
@errors_to_exit
def status(campaign: Optional[str] = typer.Argument(None, help="Campaign id (default: all campaigns)."),
           watch: bool = typer.Option(False, "--watch", "-w", help="Keep the table up to date (Ctrl-C to stop)."),
           interval: float = typer.Option(2.0, "--interval", help="With --watch: seconds between refreshes."),
           wide: bool = typer.Option(False, "--wide", help="Every column, whatever the terminal width."),
           as_json: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
    """Campaign status: all campaigns (live figures: exec/s, corpus, buckets), or one with its jobs."""
    if not 0 < interval <= 86400:  # also nan and inf, which time.sleep refuses
        raise CLIError(f"--interval must be a positive number of seconds (at most a day), got {interval:g}")
    st = _store()
    from fuzzfarm.cli import explore
    if campaign and campaign.startswith("dfs-"):  # a distributed dfs search (`submit --strategy dfs`)
        if not explore.print_explorations(st, campaign, as_json):
            raise CLIError(f"unknown search {campaign!r}; list them with `fuzzfarm status`")
        return
    if campaign and st.campaign(campaign) is None:
        raise CLIError(f"unknown campaign {campaign!r}; list campaigns with `fuzzfarm status`")
    if as_json:
        if campaign:
            summary = st.campaign_summary(campaign)
            if summary.get("strategy") == "mix":
                from fuzzfarm.farm import portfolio
                summary["mix"] = portfolio.summary(st, campaign)
            return _print_json({**summary, "jobs": [{**j, "fuzz_exec_per_s": round(j["fuzz_exec_per_s"], 1)}
                                                    for j in views.jobs(st, campaign)]})
        return _print_json([s for s in (st.campaign_summary(c) for c in st.campaign_ids()) if s])
    render = functools.partial(_status_view, st, campaign, T.is_wide(out.width, wide))
    if not watch:
        out.print(render(), soft_wrap=False)
        if not campaign:
            explore.print_explorations(st)
        summary = st.campaign_summary(campaign) if campaign else None
        if summary and summary["status"] == "failed":  # scripts see it (e.g. no worker has the harness hash)
            raise _fail(f"campaign {campaign} failed: {'; '.join(summary['errors']) or 'every job failed'}")
        return None
    try:
        if not out.is_terminal:  # a log: one table per refresh, one after the other
            while True:
                out.print(render(), soft_wrap=False)
                sys.stdout.flush()
                time.sleep(interval)
        with Live(render(), console=out, auto_refresh=False, transient=False) as live:
            while True:
                time.sleep(interval)
                live.update(render(), refresh=True)
    except KeyboardInterrupt:
        pass


def _status_view(st, campaign: str | None, wide: bool):
    """What ``status`` shows (also each refresh of ``--watch``)."""
    from rich.console import Group
    if not campaign:
        return T.campaign_rows_table(views.campaigns(st), wide=wide)
    from fuzzfarm.farm import lease

    s = st.campaign_summary(campaign)
    head = Text.assemble(f"campaign {campaign}: {s['harness']}/{s['variant']} {s['strategy']}  status ",
                         (views.phase(s), "bold"), f"  execs {s['execs']:,}  exec/s {s['fuzz_exec_per_s']:,.0f}  "
                         f"crashes {s['crashes']}  buckets {s['buckets']}  corpus {s['corpus_size']}  "
                         f"max starvation {views.max_starvation_label(s.get('max_starvation_s'))}")
    t = Table(box=None if not wide else T.box.HEAVY_HEAD)
    cols = ("job", "state", "slice", "ran", "execs", "exec/s", "cov", "crashes", "worker", "error") if wide else (
        "job", "state", "ran", "execs", "exec/s", "cov", "crashes", "worker")
    for c in cols:  # ids and numbers never wrap (a number cut in two reads as two)
        t.add_column(c, no_wrap=c in ID_COLUMNS or c in ("state", "slice", "execs", "exec/s", "cov", "crashes"),
                     overflow="fold")
    for j in views.jobs(st, campaign):
        cells = {"job": j.get("job"), "state": lease.state_label(j), "slice": j.get("slice", 0),
                 "execs": f"{int(j.get('execs_base', 0) or 0) + int(j.get('execs', 0) or 0):,}",
                 "exec/s": f"{j['fuzz_exec_per_s']:,.0f}", "cov": j.get("cov", ""),
                 "crashes": j["crash_inputs"], "worker": j.get("worker", ""),
                 "error": j.get("error", ""), "ran": j.get("ran", "")}
        t.add_row(*(T.t(cells[c]) for c in cols))
    unnamed = st.crashes_by_job(campaign).get(None)  # inputs whose crash record names no job (older records)
    if unnamed:
        t.add_row(*(T.t({"job": "?", "crashes": unnamed}.get(c, "")) for c in cols))
    errors = [Text(f"job error: {e}", style="red") for e in ([] if wide else s["errors"])]
    mix = []
    if s["strategy"] == "mix":  # which engine each job's slice ran is the "ran" column
        from fuzzfarm.farm import portfolio
        mix = [Text(portfolio.status_line(st, campaign))]
    return Group(head, *mix, t, Text(T.RATE_LEGEND, style="dim"), *errors)

