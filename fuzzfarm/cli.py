"""The ``fuzzfarm`` command.

    fuzzfarm demo                                  # everything on this machine, one command
    fuzzfarm worker -Q fuzz                        # a worker of the fleet (thin over celery)
    fuzzfarm submit checker --jobs 8 --duration 10m --wait
    fuzzfarm status [CAMPAIGN] / crashes [CAMPAIGN] / download BUCKET -o DIR / replay DIR

Every table command takes ``--json``. Errors: one line on stderr that says what to do, exit 2
(``replay`` exits 1 when the reproducer fails as recorded; ``submit --wait`` exits 1 when the
campaign found a bucket).
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import re
import shlex
import sys
import time
from typing import Optional

import typer
from rich.console import Console
from rich.live import Live
from rich.table import Table
from rich.text import Text

import fuzzfarm
from fuzzfarm import cli_tables as T
from fuzzfarm import harness as H
from fuzzfarm.farm.store import fuzz_rate

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Fuzz ports of Go concurrency bugs on a Celery farm; download minimized, verified reproducers.")
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)
if not out.is_terminal and "COLUMNS" not in os.environ:
    out.width = 4000  # piped into a file or another program: full rows, never cut to 80 columns

EXIT_ERROR = 2
EXIT_FOUND = 1  # submit --wait / ci: the campaign found a bucket (ci: a new reproducible one)
ID_COLUMNS = ("name", "campaign", "bucket", "job")  # never wrapped: people copy them
# ``mix`` (the default): a portfolio reweighted by what finds new buckets (farm/portfolio.py);
# the others pin one strategy (``pct:D``: PCT of depth D; ``walk-mix``: only the walks of the mix).
STRATEGIES = ("mix", "bytes", "random", "pct", "walk-mix")
_state: dict = {"redis": None}


class CLIError(Exception):
    """One line for stderr, already saying what to do."""


def _fail(msg: str) -> "typer.Exit":
    from fuzzfarm.farm import redis_url
    text = str(msg).strip().splitlines()[0] if str(msg).strip() else "unknown error"
    if _state.get("redis"):
        text = redis_url.mask_text(text, _state["redis"])
    err.print(f"fuzzfarm: error: {text}", markup=False)
    return typer.Exit(EXIT_ERROR)


def errors_to_exit(fn):
    """Turn every expected error into one masked line on stderr and exit code 2."""
    @functools.wraps(fn)
    def wrapper(*a, **kw):
        import redis as redis_py

        from fuzzfarm.farm.embedded import LaunchError
        from fuzzfarm.farm.redis_url import RedisURLError
        from fuzzfarm.farm.store import StoreError
        try:
            return fn(*a, **kw)
        except (CLIError, StoreError, H.HarnessError, RedisURLError, LaunchError) as e:
            raise _fail(str(e)) from None
        except redis_py.exceptions.OutOfMemoryError:
            raise _fail("Redis is out of memory (maxmemory reached, it refuses writes); the command did not "
                        "complete; free memory with `fuzzfarm gc` / `fuzzfarm delete CAMPAIGN` or raise "
                        "Redis's maxmemory, then retry") from None
        except redis_py.RedisError as e:
            raise _fail(f"Redis error: {e}; check that Redis is up and --redis / $FUZZFARM_REDIS_URL") from None
        except Exception as e:  # artifact errors come from the collector
            if type(e).__name__ == "ArtifactError":
                raise _fail(str(e)) from None
            raise
    return wrapper


@app.callback()
def _main(redis: Optional[str] = typer.Option(
        None, "--redis", envvar="FUZZFARM_REDIS_URL", show_default=False, show_envvar=True,
        help="Redis URL (redis:// or rediss://, password in the URL; never printed).")) -> None:
    _state["redis"] = redis


def _url() -> str:
    from fuzzfarm.farm import local, redis_url
    try:
        return redis_url.from_env(_state.get("redis"), fallback=local.running_url)
    except redis_url.RedisURLError as e:
        raise CLIError(str(e)) from None


def _store(url: str | None = None):
    """A Store for the configured Redis, pinged (fails fast with a clear error)."""
    from fuzzfarm.farm import local, redis_url
    from fuzzfarm.farm.store import Store, StoreError
    st = Store(url or _url())
    try:
        st.ping()
    except StoreError:
        if url is None and not redis_url.is_configured(_state.get("redis")) and not local.running_url():
            from fuzzfarm.cli_local import which_farm  # say which farm these commands look for
            raise CLIError(f"no farm to talk to: {which_farm()} is not running and no --redis or "
                           f"${redis_url.ENV} is given; start it with `fuzzfarm up`") from None
        raise
    return st


def _print_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, sort_keys=True, default=str) + "\n")


def parse_duration(text: str) -> float:
    """``90``, ``90s``, ``10m``, ``1h``, ``1h30m`` -> seconds (must be > 0)."""
    t = str(text).strip().lower()
    m = re.fullmatch(r"(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s?)?", t)
    if not t or not m or not any(m.groups()):
        raise CLIError(f"--duration {text!r} is not a duration; use seconds or e.g. 30s, 10m, 1h")
    h, mi, s = (float(g) if g else 0.0 for g in m.groups())
    secs = h * 3600 + mi * 60 + s
    if secs <= 0:
        raise CLIError(f"--duration must be positive, got {text!r}")
    if not secs <= MAX_DURATION_S:  # also inf (400 digits) and nan
        raise CLIError(f"--duration {text!r} is longer than {MAX_DURATION_S // 86400:g} days; cancel or resubmit instead")
    return secs


MAX_DURATION_S = 365 * 86400.0


def check_output_dir(path: str, option: str = "-o") -> None:
    """``path`` can be a directory we write into (it need not exist yet): said before any work."""
    if not path.strip():
        raise CLIError(f"{option} {path!r} is not a directory name; give the directory to write into")
    if os.path.exists(path) and not os.path.isdir(path):
        raise CLIError(f"{option} {path!r} is a file, not a directory; choose another {option}")
    parent = os.path.dirname(os.path.abspath(path)) or "."
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
        raise CLIError(f"{option} {path!r} cannot be created here ({parent!r} is not a writable directory)")


def check_output_file(path: str | None, option: str) -> None:
    """``path`` can be written as a file (its directory exists and is writable): said before any work."""
    if path is None:
        return
    if not path or os.path.isdir(path):
        raise CLIError(f"{option} {path!r} is not a file name; give the file to write")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
        raise CLIError(f"{option} {path!r}: the directory {parent!r} does not exist or is not writable")


def check_timeout(timeout: float, *, zero_ok: bool = False) -> None:
    """``--timeout`` is a finite number of seconds, positive (or 0 where 0 means none)."""
    import math
    if not math.isfinite(timeout) or timeout < 0 or (timeout == 0 and not zero_ok):
        raise CLIError(f"--timeout must be a positive number of seconds{' (0: none)' if zero_ok else ''}, "
                       f"got {timeout:g}")


# ---- harnesses ------------------------------------------------------------------------------
@app.command()
@errors_to_exit
def harnesses(as_json: bool = typer.Option(False, "--json", help="JSON instead of a table.")) -> None:
    """List the harnesses installed here (what workers can run)."""
    rows = []
    for name, info in H.registry().items():
        row = {"name": name, "module": info.module}
        try:
            with contextlib.redirect_stderr(io.StringIO()):  # atheris announces what it instruments
                mod = info.load()
            row.update(variants=list(mod.VARIANTS), description=getattr(mod, "DESCRIPTION", ""),
                       source_hash=info.source_hash())
        except H.HarnessError as e:
            row.update(variants=[], description="", error=str(e))
        rows.append(row)
    if as_json:
        return _print_json(rows)
    t = Table(title="installed harnesses")
    for c in ("name", "variants", "source hash", "description"):
        t.add_column(c, no_wrap=c in ID_COLUMNS)
    for r in rows:  # plain text: a description may hold `map[string]int`, which is no markup
        t.add_row(*map(T.t, (r["name"], ", ".join(r["variants"]), (r.get("source_hash") or "")[:12])),
                  T.t(r.get("description")) if r.get("description") else Text(str(r.get("error")), style="red"))
    out.print(t)


# ---- worker ---------------------------------------------------------------------------------
@app.command()
@errors_to_exit
def worker(queues: str = typer.Option("fuzz,collect", "-Q", "--queues",
                                      help="Queues: fuzz, collect, or fuzz,collect (two workers: one per queue)."),
           concurrency: int = typer.Option(os.cpu_count() or 1, "-c", "--concurrency", help="Fuzz (or -Q collect) pool processes."),
           collect_concurrency: int = typer.Option(len(os.sched_getaffinity(0)), "--collect-concurrency",
                                                   help="With both queues: the collect worker's processes (default: the cores given)."),
           loglevel: str = typer.Option("INFO", "-l", "--loglevel"),
           name: Optional[str] = typer.Option(None, "-n", "--name",
                                              help="Node name (default: QUEUE-random@host, unique per worker).")) -> None:
    """Run a farm worker: ``celery -A fuzzfarm.farm worker -Q QUEUE -E -n QUEUE-xxxxxx@%h``. With both
    queues (the default) it runs two: fuzz and a separate collect worker, so triage never
    waits behind fuzzing."""
    from fuzzfarm.farm import config, split_worker
    from fuzzfarm.farm.embedded import worker_command
    qs = [q.strip() for q in queues.split(",") if q.strip()]
    bad = [q for q in qs if q not in config.QUEUES]
    if not qs or bad:
        raise CLIError(f"unknown queue(s) {', '.join(bad) or '(none)'}; use -Q fuzz, -Q collect or -Q fuzz,collect")
    if concurrency < 1 or collect_concurrency < 1:
        raise CLIError("--concurrency and --collect-concurrency must be at least 1")
    url = _url()
    st = _store(url)
    from fuzzfarm.farm import aclcheck
    gaps = aclcheck.missing(st.r)  # the Redis user's rights, named in one line (exit 2) when missing
    if gaps:
        raise CLIError(aclcheck.line(aclcheck.user_of(url), gaps))
    os.environ["FUZZFARM_REDIS_URL"] = url
    if set(qs) == set(config.QUEUES):
        cmds = split_worker.commands(fuzz_concurrency=concurrency, collect_concurrency=collect_concurrency,
                                     loglevel=loglevel, name=name)
        for cmd in cmds:
            err.print(f"fuzzfarm: {' '.join(cmd[1:])}", markup=False)
        sys.stderr.flush()
        raise typer.Exit(split_worker.run(cmds, dict(os.environ)))
    cmd = worker_command(qs, concurrency=concurrency, name=name, loglevel=loglevel)
    err.print(f"fuzzfarm: {' '.join(cmd[1:])}", markup=False)
    sys.stderr.flush()
    raise typer.Exit(split_worker.run([cmd], dict(os.environ)))  # kept up as with both queues


# ---- submit / status ------------------------------------------------------------------------
def _check_usage(jobs: int, strategy: str | None) -> None:
    """Usage errors, found before Redis is contacted."""
    if jobs < 1:
        raise CLIError(f"--jobs must be at least 1, got {jobs}")
    from fuzzfarm.engine import known_strategy
    if strategy is not None and strategy != "mix" and not known_strategy(strategy):
        raise CLIError(f"--strategy {strategy!r} is unknown; use one of {', '.join(STRATEGIES)}, pct:DEPTH or dfs")


def _check_harness(harness: str, variant: str, jobs: int, strategy: str):
    """The harness's registry entry; CLIError/HarnessError for bad usage, before any Redis."""
    from fuzzfarm.engine.target import resolve
    _check_usage(jobs, strategy)
    info = H.get(harness)
    bad_variant = resolve(harness).check_variant(variant)
    if bad_variant:
        raise CLIError(bad_variant)
    return info


def check_max_starvation(text: str | None):
    """``--max-starvation SECONDS|none`` as the campaign records it: seconds (float), ``"none"``,
    or None when not given (the workers' FUZZFARM_MAX_STARVATION_S or the default applies)."""
    if text is None:
        return None
    try:
        bound = H.parse_max_starvation(text)
    except ValueError as e:
        raise CLIError(f"--max-starvation {e}; e.g. --max-starvation 0.5") from None
    return "none" if bound is None else bound


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
           as_json: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
    """Submit a campaign; prints its id."""
    check_max_starvation(max_starvation)  # a bad value is a usage error, before anything else
    if strategy == "dfs":
        from fuzzfarm import cli_explore
        return cli_explore.submit_dfs(harness, variant, input_file, bound, all_failures, no_reduction, wait,
                                      timeout, as_json, max_starvation=max_starvation)
    duration_s = parse_duration(duration)
    check_timeout(timeout, zero_ok=True)
    _check_harness(harness, variant, jobs, strategy)  # a typo is reported as such, Redis up or not
    st = _store()
    cid = _submit(st, harness, variant, jobs, duration_s, strategy, max_starvation)
    if not wait:
        return _print_json({"campaign": cid}) if as_json else out.print(cid)
    until = "settled" if wait_proofs else "fix_checked"
    err.print(f"campaign {cid}: {harness}/{variant}, {jobs} job(s) x {duration_s:g} s", markup=False)
    err.print("waiting until every bucket is " + ("verified, fix-checked and proven" if wait_proofs else
              "verified and fix-checked (proofs may still run; --wait-proofs waits for them too)"), markup=False)
    try:
        summary = wait_campaigns(st, [cid], timeout=timeout or None, console=err, until=until)[cid]
    except KeyboardInterrupt:
        err.print(f"fuzzfarm: stopped watching; campaign {cid} goes on on the farm. Watch it with "
                  f"`fuzzfarm status {cid}` (or `fuzzfarm status --watch`), cancel it with "
                  f"`fuzzfarm cancel {cid}`", markup=False)
        raise typer.Exit(130) from None
    if as_json:
        _print_json({"campaign": cid, "summary": summary, "buckets": bucket_rows(st, cid)})
    else:
        out.print(cid)
        print_buckets(st, cid)
        if summary.get("proving"):
            err.print(f"{len(summary['proving'])} proof(s) still running (bucket(s) {', '.join(summary['proving'])}); "
                      f"`fuzzfarm status {cid}` shows the campaign settled once they are stored", markup=False)
    if summary["status"] == "failed":
        raise _fail(f"campaign {cid} failed: {'; '.join(summary['errors']) or 'every job failed'}")
    if summary["buckets"]:
        raise typer.Exit(EXIT_FOUND)  # like a test runner: found a bug


def wait_campaigns(st, cids: list[str], *, timeout: float | None = None, console: Console = err,
                   poll_s: float = 0.5, until: str = "settled") -> dict[str, dict]:
    """Live progress lines until every campaign is settled (fuzzed and triaged; ``until="fix_checked"``:
    every bucket verified and fix-checked, proofs may still run): two per campaign, whole at 80
    columns (cli_tables.progress_view)."""
    summaries: dict[str, dict] = {}
    start = time.monotonic()

    def view():
        return T.progress_view([(summaries[c], _phase(summaries[c]), time.monotonic() - start) for c in cids])

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


def _phase(s: dict) -> str:
    """queued / running / triaging (fuzzing over, crashes still in the collector) / done / failed."""
    return "triaging" if s["status"] in ("done", "failed") and not s["settled"] else s["status"]


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
    from fuzzfarm import cli_explore
    if campaign and campaign.startswith("dfs-"):  # a distributed dfs search (`submit --strategy dfs`)
        if not cli_explore.print_explorations(st, campaign, as_json):
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
            by_job = st.crashes_by_job(campaign)  # distinct inputs each job reported first: they sum to "crashes"
            return _print_json({**summary, "jobs": [{**j, "crash_inputs": by_job.get(int(j.get("job", -1)), 0),
                                                     "fuzz_exec_per_s": round(fuzz_rate(j), 1)}
                                                    for j in st.jobs(campaign)]})
        return _print_json([s for s in (st.campaign_summary(c) for c in st.campaign_ids()) if s])
    render = functools.partial(_status_view, st, campaign, T.is_wide(out.width, wide))
    if not watch:
        out.print(render(), soft_wrap=False)
        if not campaign:
            cli_explore.print_explorations(st)
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
        rows = [{**s, "phase": _phase(s)} for s in (st.campaign_summary(c) for c in st.campaign_ids()) if s]
        return T.campaign_rows_table(rows, wide=wide)
    from fuzzfarm.farm import lease

    s = st.campaign_summary(campaign)
    head = Text.assemble(f"campaign {campaign}: {s['harness']}/{s['variant']} {s['strategy']}  status ",
                         (_phase(s), "bold"), f"  execs {s['execs']:,}  exec/s {s['fuzz_exec_per_s']:,.0f}  "
                         f"crashes {s['crashes']}  buckets {s['buckets']}  corpus {s['corpus_size']}  "
                         f"max starvation {T.max_starvation_label(s.get('max_starvation_s'))}")
    t = Table(box=None if not wide else T.box.HEAVY_HEAD)
    cols = ("job", "state", "slice", "ran", "execs", "exec/s", "cov", "crashes", "worker", "error") if wide else (
        "job", "state", "ran", "execs", "exec/s", "cov", "crashes", "worker")
    for c in cols:  # ids and numbers never wrap (a number cut in two reads as two)
        t.add_column(c, no_wrap=c in ID_COLUMNS or c in ("state", "slice", "execs", "exec/s", "cov", "crashes"),
                     overflow="fold")
    by_job = st.crashes_by_job(campaign)  # the distinct crash inputs each job reported first: they sum to the head's
    for j in st.jobs(campaign):
        cells = {"job": j.get("job"), "state": lease.state_label(j), "slice": j.get("slice", 0),
                 "execs": f"{int(j.get('execs_base', 0) or 0) + int(j.get('execs', 0) or 0):,}",
                 "exec/s": f"{fuzz_rate(j):,.0f}", "cov": j.get("cov", ""),
                 "crashes": by_job.get(int(j.get("job", -1)), 0), "worker": j.get("worker", ""),
                 "error": j.get("error", ""), "ran": j.get("ran", "")}
        t.add_row(*(T.t(cells[c]) for c in cols))
    if by_job.get(None):  # inputs whose crash record names no job (recorded before jobs were)
        t.add_row(*(T.t({"job": "?", "crashes": by_job[None]}.get(c, "")) for c in cols))
    errors = [Text(f"job error: {e}", style="red") for e in ([] if wide else s["errors"])]
    mix = []
    if s["strategy"] == "mix":  # which engine each job's slice ran is the "ran" column
        from fuzzfarm.farm import portfolio
        mix = [Text(portfolio.status_line(st, campaign))]
    return Group(head, *mix, t, Text(T.RATE_LEGEND, style="dim"), *errors)


# ---- crashes / download / replay --------------------------------------------------------------
BUCKET_PUBLIC = ("id", "group", "harness", "variant", "kind", "exc_class", "crash_type", "crash_state", "message", "signature",
                 "state", "count", "joined_unreplayed", "original_size", "minimized_size", "preemptions_before", "preemptions_after",
                 "reproducible", "verify_ok", "verify_n", "first_divergence", "fixed", "fix_variant", "fix_kind", "fix_keeps",
                 "fix_proof", "fix_proof_line",
                 "first_campaign", "created", "done_at", "artifact_at", "first_artifact_at", "minimize_s",
                 "minimize_note", "error", "flaky", "fix_verdict", "fix_summary", "fix_outcome", "fix_schedules",
                 "fix_evidence", "fix_check_s", "masked_bucket", "masked_by_fix_of", "object", "racing_site", "go_racing_site",
                 "go_crash_state", "starvation_s", "starved", "max_starvation_s", "verdict_context", "verdict_record", "verdict_label",
                 "buggy_rate", "verify_hash_seeds", "hash_seed_dependent", "object_site")


def bucket_rows(st, campaign: str | None = None) -> list[dict]:
    if campaign is not None and st.campaign(campaign) is None:
        raise CLIError(f"unknown campaign {campaign!r}; list campaigns with `fuzzfarm status`")
    ids = st.campaign_bucket_ids(campaign) if campaign else st.bucket_ids()
    rows = []
    for bid in ids:
        b = st.bucket(bid)
        if b:
            from fuzzfarm.farm.recheck import shown  # the verdict of the campaign's bound and harness
            rows.append({k: v for k, v in shown(st, b, campaign).items() if k in BUCKET_PUBLIC})
    return rows


def print_buckets(st, campaign: str | None = None, console: Console = out, wide: bool = False,
                  flat: bool = True) -> None:
    rows = bucket_rows(st, campaign)
    if rows and not flat:
        from fuzzfarm.cli_groups import print_groups
        return print_groups(st, rows, f"groups of buckets{' of ' + campaign if campaign else ''}", console,
                            wide=wide)
    if not rows:
        console.print("no buckets" + (f" for campaign {campaign}" if campaign else ""), markup=False)
        return
    from fuzzfarm.cli_groups import annotate
    annotate(st, rows)  # groups are computed when read (stored overrides included); the flat table shows them too
    title = f"buckets{' of ' + campaign if campaign else ''}"
    console.print(T.bucket_table(rows, title, wide=T.is_wide(console.width, wide)), soft_wrap=False)


@app.command()
@errors_to_exit
def crashes(campaign: Optional[str] = typer.Argument(None, help="Campaign id (default: every bucket)."),
            wide: bool = typer.Option(False, "--wide", help="Every column (crash state, sizes, preemptions) in one row."),
            flat: bool = typer.Option(False, "--flat", help="One row per bucket, no groups."),
            as_json: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
    """Root-cause groups, each with its buckets (one per signature) under it; --flat: buckets only."""
    from fuzzfarm.cli_groups import annotate
    st = _store()
    if as_json:
        return _print_json(annotate(st, bucket_rows(st, campaign)))
    print_buckets(st, campaign, wide=wide, flat=flat)


def download_bucket(st, bucket: str, out_dir: str, *, overwrite: bool = True) -> list[str]:
    from fuzzfarm import collector
    b = st.bucket(bucket)
    if b is None:
        raise CLIError(f"unknown bucket {bucket!r}; list buckets with `fuzzfarm crashes`")
    files = st.artifact(bucket)
    if not files:
        raise CLIError(f"bucket {bucket} has no artifact yet (triage: {b.get('state')}); retry in a few seconds")
    test = _regression_test(b)
    from fuzzfarm.collector.artifact import safe_name
    names = [safe_name(n) for n in (*files, *test)]  # a hostile stored name is refused, never probed
    taken = [n for n in names if os.path.lexists(os.path.join(out_dir, n))] if not overwrite else []
    if taken:  # said before anything is written: the directory stays as it was
        raise CLIError(f"{out_dir} already holds {taken[0]}" + (f" and {len(taken) - 1} more file(s)" if len(taken) > 1
                       else "") + "; choose another -o DIR, or pass --force to overwrite them")
    try:  # what the checks before could not know (a read-only or virtual file system, a full disk)
        os.makedirs(out_dir, exist_ok=True)
        written = collector.write_artifact(files, out_dir)
        return written + collector.write_artifact(test, out_dir)
    except OSError as e:
        raise CLIError(f"cannot write into {out_dir}: {e.strerror or e}; choose another -o DIR") from None


def _regression_test(b: dict) -> dict[str, bytes]:
    """``test_<bucket>.py``: replays the reproducer on fixed (must pass) and buggy (must fail)."""
    from fuzzfarm import regression_test
    from fuzzfarm.farm import triage
    fv, kept = b.get("fix_variant") or None, bool(b.get("fix_keeps"))
    try:  # what the harness installed here declares (a bucket still in triage has no fix check yet)
        fv = fv or triage.fix_variant(b["harness"], b["variant"])
        kept = kept or triage.kept_by_fix(b["harness"], b.get("kind") or "", b.get("crash_state") or [])
    except H.HarnessError:
        pass  # not installed here: the test file says so when it runs (replay needs the harness)
    return {regression_test.file_name(b["id"]): regression_test.render(b, fixed_variant=fv, kept_by_fix=kept)}


@app.command()
@errors_to_exit
def download(bucket: str = typer.Argument(..., help="Bucket id (see `fuzzfarm crashes`)."),
             output: Optional[str] = typer.Option(None, "-o", "--output", help="Directory (default ./fuzzfarm-out/BUCKET)."),
             force: bool = typer.Option(False, "--force", help="Write into a directory that is not empty "
                                                                 "(files of the same name are overwritten)."),
             as_json: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
    """Download a bucket's reproducer (minimized + original input, trace, failure, sha256s)."""
    st = _store()
    if output is None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}", bucket):
        # the default directory is named after the bucket: it must not lead out of ./fuzzfarm-out
        raise CLIError(f"bucket id {bucket!r} is not a plain name; choose the directory with -o DIR")
    out_dir = output if output is not None else os.path.join("fuzzfarm-out", bucket)  # -o "" is refused
    check_output_dir(out_dir)
    if not force and os.path.isdir(out_dir) and os.listdir(out_dir):  # never beside unrelated files
        held = sorted(os.listdir(out_dir))
        raise CLIError(f"{out_dir} is not empty (it holds {held[0]}" + (f" and {len(held) - 1} more" if len(held) > 1
                       else "") + "); choose another -o DIR, or pass --force to write into it")
    written = download_bucket(st, bucket, out_dir, overwrite=force)
    b = st.bucket(bucket)
    if as_json:
        return _print_json({"bucket": bucket, "dir": os.path.abspath(out_dir), "files": written, "state": b.get("state")})
    if b.get("state") == "proving":  # minimized, verified and fix-checked: only the proof is still running
        err.print(f"fuzzfarm: note: bucket {bucket}'s proof is still running; the reproducer and its fix "
                  f"verdict are final", markup=False)
    elif b.get("state") != "done":
        err.print(f"fuzzfarm: warning: bucket {bucket} is still in triage ({b.get('state')}): this reproducer is "
                  f"not minimized/verified yet", markup=False)
    from fuzzfarm.cli_path import typed
    q = shlex.quote(out_dir)  # the commands run as printed, whatever the directory's name
    out.print(f"{bucket} -> {out_dir} ({len(written)} files); replay with: {typed('fuzzfarm')} replay {q}; "
              f"regression test: {typed('pytest')} {q}", markup=False)


@app.command()
@errors_to_exit
def replay(path: str = typer.Argument(..., help="A directory written by `fuzzfarm download`."),
           variant: Optional[str] = typer.Option(None, "--variant", help="Replay on another variant (e.g. fixed)."),
           original: bool = typer.Option(False, "--original", help="Replay the original input, not the minimized one."),
           quiet: bool = typer.Option(False, "--quiet", "-q", help="Do not print the interleaving trace."),
           retriage: bool = typer.Option(False, "--retriage", help="Re-run the triage (minimize, verify, fix check) "
                                         "under the harness code installed here; writes DIR-<new hash>."),
           as_json: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
    """Re-run a downloaded reproducer here. Exit 1 when it fails as recorded, 0 when it does not fail,
    3 when it fails differently."""
    from fuzzfarm import collector
    from fuzzfarm.engine.target import resolve
    if retriage:  # collector/retriage.py
        if variant or original:
            raise CLIError("--retriage triages the recorded variant from the recorded input; drop --variant/--original")
        from fuzzfarm.collector.retriage import retriage_dir
        res = retriage_dir(path, version=fuzzfarm.__version__)
        _print_json(res) if as_json else out.print(res["text"], markup=False)
        raise typer.Exit(res["exit"])
    art = collector.load_artifact(path)
    repro = art.repro
    harness, rec_variant = repro.get("harness"), repro.get("variant")
    if not harness or not rec_variant:
        raise CLIError(f"{path}/repro.json names no harness/variant; this is not a fuzzfarm reproducer")
    warnings = []
    if repro.get("fuzzfarm_version") not in (None, fuzzfarm.__version__):
        warnings.append(f"recorded with fuzzfarm {repro.get('fuzzfarm_version')}, this is {fuzzfarm.__version__}")
    local_hash = H.get(harness).source_hash()
    if repro.get("harness_hash") and repro["harness_hash"] != local_hash:
        warnings.append(f"harness {harness!r} here has source hash {local_hash[:12]}, the reproducer was recorded "
                        f"with {repro['harness_hash'][:12]}; the replay may diverge")
    for w in warnings:
        err.print(f"fuzzfarm: warning: {w}; replaying anyway", markup=False)
    v = variant if variant is not None else rec_variant  # --variant "" is refused, not the recorded one
    if original and art.original is None:
        raise CLIError(f"{path} has no input.orig; replay without --original")
    data = art.original if original else art.minimized
    from fuzzfarm.engine import MAX_INPUT_BYTES
    if len(data) > MAX_INPUT_BYTES:
        raise CLIError(f"{path}: the {'original' if original else 'minimized'} input is {len(data)} bytes, over the "
                       f"{MAX_INPUT_BYTES}-byte limit of a reproducer; download the bucket again")
    try:  # the bound the reproducer was found and triaged under: an input's schedule depends on it
        target = resolve(harness, collector.recorded_max_starvation(repro))
    except ValueError as e:
        raise CLIError(f"{path}/repro.json: max_starvation_s {e}; download the bucket again") from None
    res = collector.replay(target, v, data, trace=True)
    sig, recorded = res.get("signature"), repro.get("signature")
    from fuzzfarm.collector.verdict import go_failure  # the same Go failure under another Python name is the bug
    same = sig == recorded or (go_failure(repro) is not None and go_failure(res) == go_failure(repro))
    verdict = "not failing" if not res["failed"] else ("fails as recorded" if same else "fails differently")
    code = {"not failing": 0, "fails as recorded": 1, "fails differently": 3}[verdict]
    kind = (repro.get("crash_type") or "").split(" (")[0]
    if verdict == "not failing" and v != rec_variant and resolve(harness).kept_by_fix(kind, repro.get("crash_state") or []):
        warnings.append(f"the harness declares that {v!r} still reaches {kind!r} (an upstream hazard the fix "
                        f"keeps): this schedule not failing on {v!r} does not mean the fix holds")
        err.print(f"fuzzfarm: warning: {warnings[-1]}", markup=False)
    if as_json:
        _print_json({"harness": harness, "variant": v, "verdict": verdict, "signature": sig, "recorded_signature": recorded,
                     "harness_hash": local_hash, "recorded_harness_hash": repro.get("harness_hash"),
                     "warnings": warnings, "outcome": res})
        raise typer.Exit(code)
    if not quiet and res.get("trace"):
        out.print(res["trace"], markup=False)  # the interleaving, ending with the crash dump
    elif res["failed"]:
        out.print(res.get("dump") or f"{res['kind']}: {res.get('message')}", markup=False)
    if "max_starvation_s" in res:  # the bound the run had (the recorded one, or the harness's own)
        bound = H.bound_words(res["max_starvation_s"])
    else:  # the run gave no outcome of its own (a timeout): the bound it was started under
        bound = T.max_starvation_label(target.max_starvation or H.max_starvation_text(H.max_starvation_s()))
    out.print(f"{harness}/{v}: {verdict} ({len(data)}-byte {'original' if original else 'minimized'} input, "
              f"starvation bound {bound})", markup=False)
    if res.get("failed"):  # what the failure needs, against the realism bound (docs/timing.md)
        out.print(f"starvation: {H.starvation_need(res.get('starvation'), H.starved_goroutines(res))}", markup=False)
    raise typer.Exit(code)


# ---- demo ----------------------------------------------------------------------------------
DEMO_HARNESSES = ("checker", "cluster-builder")
# Per harness, the strategy its campaigns use in the demo: the default mix (job 0 starts on the
# walks, job 1 on atheris; docs/STRATEGIES.md#mix).
DEMO_STRATEGY = {"checker": "mix", "cluster-builder": "mix"}


@app.command()
@errors_to_exit
def demo(names: Optional[list[str]] = typer.Argument(
             None, metavar="HARNESS", help=f"Installed harnesses to fuzz (default: {' '.join(DEMO_HARNESSES)})."),
         duration: str = typer.Option("20", "--duration", "-d", help="Fuzzing time per job."),
         jobs: int = typer.Option(2, "--jobs", "-j", help="Jobs per harness."),
         output: str = typer.Option("fuzzfarm-out", "-o", "--output", help="Where reproducers are downloaded."),
         strategy: Optional[str] = typer.Option(None, "--strategy",
                                                help="mix | bytes | random | pct | pct:DEPTH | walk-mix (default: mix)."),
         down: bool = typer.Option(False, "--down", help="Stop the local farm at the end if the demo started it."),
         timeout: float = typer.Option(900, "--timeout", help="Give up after this many seconds."),
         web_view: bool = typer.Option(True, "--web/--no-web", help="Serve the web view while the demo runs."),
         as_json: bool = typer.Option(False, "--json", help="JSON summary at the end.")) -> None:
    """Run the harnesses' buggy variants (any installed harness; default: the two seed harnesses) on
    the local farm (started with `fuzzfarm up` if it is not running; it stays up) or on
    --redis/$FUZZFARM_REDIS_URL with workers of its own; print the buckets and download the reproducers."""
    from fuzzfarm.farm import configure, redis_url
    duration_s = parse_duration(duration)
    check_timeout(timeout)
    check_output_dir(output)
    hs = tuple(dict.fromkeys(names)) if names else DEMO_HARNESSES
    for h in hs:  # an unknown name or a harness without "buggy" is reported before anything starts
        _check_harness(h, "buggy", jobs, strategy)
    given = redis_url.is_configured(_state.get("redis"))
    url = _url() if given else None
    if given:
        _store(url)
    t0 = time.monotonic()
    show = err if as_json else out  # with --json, stdout carries the JSON only
    with _demo_farm(url, jobs * len(hs), down) as (farm_url, started, where):
        _state["redis"] = farm_url
        configure(farm_url)
        st = _store(farm_url)
        err.print(f"fuzzfarm demo: redis {redis_url.mask(farm_url)}, workers up in {time.monotonic() - t0:.1f} s "
                  f"(logs in {where})", markup=False)
        from fuzzfarm import cli_web
        farm_web = started.get("web")  # the local farm keeps its own web view up
        if web_view and farm_web:
            err.print(f"fuzzfarm demo: web view {farm_web} (read-only; stays up with the local farm)", markup=False)
        web = cli_web.start_background(farm_url, err) if web_view and not farm_web else None
        cids = [_submit(st, h, "buggy", jobs, duration_s, strategy or DEMO_STRATEGY.get(h, "mix")) for h in hs]
        wait_campaigns(st, cids, timeout=timeout)
        downloads = []
        for cid in cids:
            print_buckets(st, cid, console=show, flat=False)
            for bid in st.campaign_bucket_ids(cid):
                d = os.path.join(output, f"{st.campaign(cid)['harness']}-{bid}")
                if st.artifact(bid):
                    download_bucket(st, bid, d)
                    downloads.append({"campaign": cid, "bucket": bid, "dir": d})
        from fuzzfarm.cli_path import path_advice, typed
        ff = typed("fuzzfarm")  # every command printed runs as printed in the user's shell
        for d in downloads:
            show.print(f"reproducer {d['bucket']} -> {d['dir']}   ({ff} replay {d['dir']})", markup=False)
        summaries = {cid: st.campaign_summary(cid) for cid in cids}
        for s in summaries.values():
            first = f"{s['first_reproducer_s']:.1f} s" if s["first_reproducer_s"] is not None else "none"
            show.print(f"{s['harness']}/{s['variant']} ({s['strategy']}): {s['execs']:,} execs, {s['crashes']} crashes, "
                       f"{s['buckets']} bucket(s); first downloadable reproducer {first} after submit", markup=False)
        from fuzzfarm.cli_groups import annotate
        buckets = {c: annotate(st, bucket_rows(st, c)) for c in cids}
        if web is not None:
            web.stop()
        st.r.close()
    if started.get("local") and not started.get("stopped"):
        err.print(f"fuzzfarm demo: done in {time.monotonic() - t0:.0f} s; the local farm stays up with these results "
                  f"(`{ff} crashes`, `{ff} status`; `{ff} down` stops it)", markup=False)
    else:
        err.print(f"fuzzfarm demo: done in {time.monotonic() - t0:.0f} s; everything it started is stopped; the results "
                  f"stay in {'that Redis' if given else 'the local farm data'}", markup=False)
    if path_advice():
        err.print(f"fuzzfarm demo: {path_advice()}", markup=False)
    if as_json:
        _print_json({"campaigns": summaries, "buckets": buckets, "downloads": downloads, "started": started,
                     "elapsed_s": round(time.monotonic() - t0, 1)})


@contextlib.contextmanager
def _demo_farm(url: str | None, jobs: int, down: bool):
    """(URL, what was started, where the logs are) for the demo's ``jobs`` fuzz jobs: workers of its
    own on a given Redis (stopped at the end), or the local farm (started if needed, left up unless
    ``down``)."""
    # a demo shows results in minutes: minimization gets 30 s per bucket unless the environment says otherwise
    worker_env = {"FUZZFARM_MINIMIZE_BUDGET_S": os.environ.get("FUZZFARM_MINIMIZE_BUDGET_S", "30")}
    fuzz_c = max(2, jobs)
    if url:
        from fuzzfarm.farm.embedded import Farm
        with Farm(url, fuzz_concurrency=fuzz_c, collect_concurrency=2, worker_env=worker_env) as farm:
            yield farm.url, {"redis_pid": None, "worker_pids": [w.proc.pid for w in farm.workers]}, farm.workdir
        return
    from fuzzfarm.cli_local import ensure_up
    from fuzzfarm.farm import local
    from fuzzfarm.cli_local import which_farm
    err.print(f"fuzzfarm demo: using the local {which_farm()}, starting it if it is not up ...", markup=False)
    st, fresh = ensure_up(fuzz_concurrency=fuzz_c, env=worker_env)
    started = {"local": True, "started_now": fresh, "redis_pid": st["redis_pid"], "supervisor_pid": st["supervisor_pid"],
               "worker_pids": [s["pid"] for s in st["services"]],
               "web": next((s["url"] for s in st["services"] if s.get("url")), None)}
    try:
        yield st["url"], started, st["dir"]
    finally:
        if down and fresh:
            local.stop()
            started["stopped"] = True


# Commands in modules of their own (each ``register(app)``; they import this module).
EXTENSIONS = ("fuzzfarm.cli_local", "fuzzfarm.cli_cancel", "fuzzfarm.cli_ci", "fuzzfarm.cli_new",
              "fuzzfarm.cli_groups", "fuzzfarm.cli_web",
              "fuzzfarm.cli_gc", "fuzzfarm.cli_explore", "fuzzfarm.cli_checkport", "fuzzfarm.cli_venv",
              "fuzzfarm.cli_port")


def _register_extensions() -> None:
    import importlib
    for name in EXTENSIONS:
        importlib.import_module(name).register(app)
    from fuzzfarm.cli_help import whole_sentence_helps
    whole_sentence_helps(app)  # after every command is on the app


def main(argv: list[str] | None = None) -> None:
    """The console script: Click's usage errors (a bad integer, an unknown option or command)
    become one line on stderr and exit 2, like every other bad argument."""
    try:  # typer >= 0.20 carries its own copy of Click; older ones use click itself
        from typer._click import exceptions as click_exc
    except ImportError:  # pragma: no cover
        from click import exceptions as click_exc
    try:
        rv = app(args=argv, prog_name="fuzzfarm", standalone_mode=False)
    except click_exc.NoArgsIsHelpError as e:
        out.print(e.ctx.get_help(), markup=False)
        raise SystemExit(EXIT_ERROR) from None
    except click_exc.UsageError as e:
        where = e.ctx.command_path if e.ctx is not None else "fuzzfarm"
        msg = " ".join(e.format_message().split()).rstrip(".")
        err.print(f"fuzzfarm: error: {msg}; see `{where} --help`", markup=False)
        raise SystemExit(EXIT_ERROR) from None
    except click_exc.ClickException as e:
        err.print(f"fuzzfarm: error: {' '.join(e.format_message().split())}", markup=False)
        raise SystemExit(EXIT_ERROR) from None
    except typer.Abort:
        err.print("fuzzfarm: interrupted", markup=False)
        raise SystemExit(130) from None
    raise SystemExit(rv if isinstance(rv, int) else 0)


if __name__ == "__main__":
    # `python -m fuzzfarm.cli`: run the package module (the extensions register on its app)
    from fuzzfarm.cli import main as _main
    _main()
else:
    _register_extensions()
