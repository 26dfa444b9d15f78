"""The ``fuzzfarm`` command.

    fuzzfarm demo                                  # everything on this machine, one command
    fuzzfarm worker -Q fuzz                        # a worker of the fleet (thin over celery)
    fuzzfarm submit checker --jobs 8 --duration 10m --wait
    fuzzfarm status [CAMPAIGN] / crashes [CAMPAIGN] / download BUCKET -o DIR / replay DIR

Every table command takes ``--json``. Errors: one line on stderr that says what to do, exit 2
(``replay`` exits 1 when the reproducer fails as recorded).
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import re
import sys
import time
from typing import Optional

import typer
from rich.console import Console
from rich.live import Live
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

import fuzzfarm
from fuzzfarm import harness as H

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Fuzz ports of Go concurrency bugs on a Celery farm; download minimized, verified reproducers.")
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)
if not out.is_terminal and "COLUMNS" not in os.environ:
    out.width = 200  # piped into a file or another program: do not squeeze tables to 80 columns

EXIT_ERROR = 2
ID_COLUMNS = ("name", "campaign", "bucket", "job")  # never wrapped: people copy them
STRATEGIES = ("bytes", "random", "pct")
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
        from fuzzfarm.store import StoreError
        try:
            return fn(*a, **kw)
        except (CLIError, StoreError, H.HarnessError, RedisURLError, LaunchError) as e:
            raise _fail(str(e)) from None
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
    from fuzzfarm.farm import redis_url
    try:
        return redis_url.from_env(_state.get("redis"))
    except redis_url.RedisURLError as e:
        raise CLIError(str(e)) from None


def _store(url: str | None = None):
    """A Store for the configured Redis, pinged (fails fast with a clear error)."""
    from fuzzfarm.store import Store
    st = Store(url or _url())
    st.ping()
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
    return secs


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
    for r in rows:
        t.add_row(r["name"], ", ".join(r["variants"]), (r.get("source_hash") or "")[:12],
                  r.get("description") or f"[red]{r.get('error')}[/red]")
    out.print(t)


# ---- worker ---------------------------------------------------------------------------------
@app.command()
@errors_to_exit
def worker(queues: str = typer.Option("fuzz,collect", "-Q", "--queues", help="Queues to consume: fuzz, collect or both."),
           concurrency: int = typer.Option(os.cpu_count() or 1, "-c", "--concurrency", help="Pool processes."),
           loglevel: str = typer.Option("INFO", "-l", "--loglevel"),
           name: Optional[str] = typer.Option(None, "-n", "--name", help="Worker name (default: queues-random).")) -> None:
    """Run a farm worker: the same as ``celery -A fuzzfarm.farm worker -Q QUEUES``."""
    from fuzzfarm.farm import config
    from fuzzfarm.farm.embedded import worker_command
    qs = [q.strip() for q in queues.split(",") if q.strip()]
    bad = [q for q in qs if q not in config.QUEUES]
    if not qs or bad:
        raise CLIError(f"unknown queue(s) {', '.join(bad) or '(none)'}; use -Q fuzz, -Q collect or -Q fuzz,collect")
    if concurrency < 1:
        raise CLIError("--concurrency must be at least 1")
    url = _url()
    _store(url)
    os.environ["FUZZFARM_REDIS_URL"] = url
    cmd = worker_command(qs, concurrency=concurrency, name=name, loglevel=loglevel)
    err.print(f"fuzzfarm: {' '.join(cmd[1:])}", markup=False)
    sys.stderr.flush()
    os.execv(cmd[0], cmd)


# ---- submit / status ------------------------------------------------------------------------
def _check_usage(jobs: int, strategy: str | None) -> None:
    """Usage errors, found before Redis is contacted."""
    if jobs < 1:
        raise CLIError(f"--jobs must be at least 1, got {jobs}")
    if strategy is not None and strategy not in STRATEGIES:
        raise CLIError(f"--strategy {strategy!r} is unknown; use one of {', '.join(STRATEGIES)}")


def _check_harness(harness: str, variant: str, jobs: int, strategy: str):
    """The harness's registry entry; CLIError/HarnessError for bad usage, before any Redis."""
    from fuzzfarm.engine.target import resolve
    _check_usage(jobs, strategy)
    info = H.get(harness)
    bad_variant = resolve(harness).check_variant(variant)
    if bad_variant:
        raise CLIError(bad_variant)
    return info


def _submit(st, harness: str, variant: str, jobs: int, duration_s: float, strategy: str) -> str:
    from fuzzfarm.farm import configure
    from fuzzfarm.farm.tasks import submit_campaign
    info = _check_harness(harness, variant, jobs, strategy)
    configure(st.url)
    spec = {"harness": harness, "variant": variant, "jobs": jobs, "duration_s": duration_s, "strategy": strategy,
            "harness_hash": info.source_hash(), "version": fuzzfarm.__version__}
    return submit_campaign(st, spec)


@app.command()
@errors_to_exit
def submit(harness: str = typer.Argument(..., help="Registered harness name (see `fuzzfarm harnesses`)."),
           variant: str = typer.Option("buggy", "--variant", help="Harness variant, e.g. buggy or fixed."),
           jobs: int = typer.Option(1, "--jobs", "-j", help="Parallel fuzz jobs."),
           duration: str = typer.Option("60", "--duration", "-d", help="Fuzzing time per job: seconds or 30s/10m/1h."),
           strategy: str = typer.Option("bytes", "--strategy", help="bytes | random | pct"),
           wait: bool = typer.Option(False, "--wait", help="Show live progress until the campaign is triaged."),
           timeout: float = typer.Option(0, "--timeout", help="With --wait: give up after this many seconds (0: none)."),
           as_json: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
    """Submit a campaign; prints its id."""
    duration_s = parse_duration(duration)
    _check_harness(harness, variant, jobs, strategy)  # a typo is reported as such, Redis up or not
    st = _store()
    cid = _submit(st, harness, variant, jobs, duration_s, strategy)
    if not wait:
        return _print_json({"campaign": cid}) if as_json else out.print(cid)
    err.print(f"campaign {cid}: {harness}/{variant}, {jobs} job(s) x {duration_s:g} s", markup=False)
    summary = wait_campaigns(st, [cid], timeout=timeout or None, console=err)[cid]
    if as_json:
        _print_json({"campaign": cid, "summary": summary, "buckets": bucket_rows(st, cid)})
    else:
        out.print(cid)
        print_buckets(st, cid)
    if summary["status"] == "failed":
        raise _fail(f"campaign {cid} failed: {'; '.join(summary['errors']) or 'every job failed'}")


def wait_campaigns(st, cids: list[str], *, timeout: float | None = None, console: Console = err,
                   poll_s: float = 0.5) -> dict[str, dict]:
    """Live progress bars until every campaign is settled (fuzzed and triaged)."""
    progress = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                        TextColumn("{task.fields[info]}"), TimeElapsedColumn(), console=console,
                        refresh_per_second=4)
    tasks = {}
    summaries: dict[str, dict] = {}
    start = time.monotonic()
    with progress:
        for cid in cids:
            c = st.campaign(cid)
            tasks[cid] = progress.add_task(f"{c['harness']}/{c['variant']} {cid}", total=1.0, info="queued")
        while True:
            for cid in cids:
                s = summaries[cid] = st.campaign_summary(cid)
                phase = _phase(s)
                if phase == "queued" and time.monotonic() - start > 15:
                    phase = "queued (is a worker consuming -Q fuzz?)"
                info = (f"{phase:<8} execs {s['execs']:>9,}  {s['exec_per_s']:>7,.0f}/s  crashes {s['crashes']:>3}  "
                        f"buckets {s['buckets']} ({s['buckets_ready']} ready)")
                progress.update(tasks[cid], completed=min(1.0, s["fuzz_progress"]), info=info)
            if all(s["settled"] for s in summaries.values()):
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
           as_json: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
    """Campaign status: all campaigns, or one with its jobs."""
    st = _store()
    if campaign:
        s = st.campaign_summary(campaign)
        if s is None:
            raise CLIError(f"unknown campaign {campaign!r}; list campaigns with `fuzzfarm status`")
        jobs = st.jobs(campaign)
        if as_json:
            return _print_json({**s, "jobs": jobs})
        out.print(f"campaign {campaign}: {s['harness']}/{s['variant']} {s['strategy']}  status [bold]{_phase(s)}"
                  f"[/bold]  execs {s['execs']:,}  crashes {s['crashes']}  buckets {s['buckets']}  "
                  f"corpus {s['corpus_size']}")
        t = Table()
        for c in ("job", "state", "slice", "execs", "exec/s", "cov", "crashes", "worker", "error"):
            t.add_column(c, no_wrap=c in ID_COLUMNS)
        for j in jobs:
            t.add_row(str(j.get("job")), str(j.get("state")), str(j.get("slice", 0)),
                      f"{int(j.get('execs_base', 0) or 0) + int(j.get('execs', 0) or 0):,}",
                      f"{float(j.get('exec_per_s', 0) or 0):,.0f}", str(j.get("cov", "")), str(j.get("crashes", "")),
                      str(j.get("worker", "")), str(j.get("error", "")))
        out.print(t)
        return
    rows = [s for s in (st.campaign_summary(c) for c in st.campaign_ids()) if s]
    if as_json:
        return _print_json(rows)
    t = Table(title="campaigns")
    for c in ("campaign", "harness", "variant", "strategy", "status", "jobs done", "execs", "crashes", "buckets",
              "first repro"):
        t.add_column(c, no_wrap=c in ID_COLUMNS)
    for s in rows:
        t.add_row(s["id"], s["harness"], s["variant"], s["strategy"], _phase(s), f"{s['jobs_done']}/{s['jobs']}",
                  f"{s['execs']:,}", str(s["crashes"]), str(s["buckets"]),
                  "-" if s["first_reproducer_s"] is None else f"{s['first_reproducer_s']:.1f} s")
    out.print(t)


# ---- crashes / download / replay --------------------------------------------------------------
BUCKET_PUBLIC = ("id", "harness", "variant", "kind", "exc_class", "crash_type", "crash_state", "message", "signature",
                 "state", "count", "original_size", "minimized_size", "preemptions_before", "preemptions_after",
                 "reproducible", "verify_ok", "verify_n", "first_divergence", "fixed", "fix_variant", "fix_kind", "fix_keeps",
                 "first_campaign", "created", "done_at", "artifact_at", "first_artifact_at", "minimize_s",
                 "minimize_note", "error", "go_crash_state", "starvation_s")


def bucket_rows(st, campaign: str | None = None) -> list[dict]:
    if campaign is not None and st.campaign(campaign) is None:
        raise CLIError(f"unknown campaign {campaign!r}; list campaigns with `fuzzfarm status`")
    ids = st.campaign_bucket_ids(campaign) if campaign else st.bucket_ids()
    rows = []
    for bid in ids:
        b = st.bucket(bid)
        if b:
            rows.append({k: b.get(k) for k in BUCKET_PUBLIC})
    return rows


def _yn(v) -> str:
    return "-" if v in (None, "") else ("yes" if v else "NO")


def print_buckets(st, campaign: str | None = None, console: Console = out) -> None:
    rows = bucket_rows(st, campaign)
    t = Table(title=f"buckets{' of ' + campaign if campaign else ''}")
    for c in ("bucket", "kind", "crash state", "triage", "count", "size orig→min", "preemptions", "starvation",
              "reproducible", "fixed"):
        t.add_column(c, no_wrap=c in ID_COLUMNS)
    for r in rows:
        size = f"{r['original_size']}→{r['minimized_size']}" if r.get("minimized_size") not in (None, "") else f"{r.get('original_size')}"
        pre = (f"{r.get('preemptions_before')}→{r.get('preemptions_after')}"
               if r.get("preemptions_after") not in (None, "") else str(r.get("preemptions_before", "")))
        rep = f"{r['verify_ok']}/{r['verify_n']}" if r.get("verify_n") not in (None, "") else "-"
        state = r.get("go_crash_state") or r.get("crash_state") or []  # Go's names and lines when declared
        starved = "-" if r.get("starvation_s") in (None, "") else f"{r['starvation_s']:g} s"
        t.add_row(r["id"], r.get("crash_type") or r.get("kind") or "", " < ".join(state),
                  r.get("state") or "", str(r.get("count")), size, pre, starved, rep,
                  "kept (hazard)" if r.get("fix_keeps") else _yn(r.get("fixed")))
    if not rows:
        console.print("no buckets" + (f" for campaign {campaign}" if campaign else ""))
        return
    console.print(t)


@app.command()
@errors_to_exit
def crashes(campaign: Optional[str] = typer.Argument(None, help="Campaign id (default: every bucket)."),
            as_json: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
    """The bucket table: one row per distinct bug (signature)."""
    st = _store()
    if as_json:
        return _print_json(bucket_rows(st, campaign))
    print_buckets(st, campaign)


def download_bucket(st, bucket: str, out_dir: str) -> list[str]:
    from fuzzfarm import collector
    b = st.bucket(bucket)
    if b is None:
        raise CLIError(f"unknown bucket {bucket!r}; list buckets with `fuzzfarm crashes`")
    files = st.artifact(bucket)
    if not files:
        raise CLIError(f"bucket {bucket} has no artifact yet (triage: {b.get('state')}); retry in a few seconds")
    os.makedirs(out_dir, exist_ok=True)
    return collector.write_artifact(files, out_dir)


@app.command()
@errors_to_exit
def download(bucket: str = typer.Argument(..., help="Bucket id (see `fuzzfarm crashes`)."),
             output: Optional[str] = typer.Option(None, "-o", "--output", help="Directory (default ./fuzzfarm-out/BUCKET)."),
             as_json: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
    """Download a bucket's reproducer (minimized + original input, trace, failure, sha256s)."""
    st = _store()
    if output is None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}", bucket):
        # the default directory is named after the bucket: it must not lead out of ./fuzzfarm-out
        raise CLIError(f"bucket id {bucket!r} is not a plain name; choose the directory with -o DIR")
    out_dir = output or os.path.join("fuzzfarm-out", bucket)
    written = download_bucket(st, bucket, out_dir)
    b = st.bucket(bucket)
    if as_json:
        return _print_json({"bucket": bucket, "dir": os.path.abspath(out_dir), "files": written, "state": b.get("state")})
    if b.get("state") != "done":
        err.print(f"fuzzfarm: warning: bucket {bucket} is still in triage ({b.get('state')}): this reproducer is "
                  f"not minimized/verified yet", markup=False)
    out.print(f"{bucket} -> {out_dir} ({len(written)} files); replay with: fuzzfarm replay {out_dir}", markup=False)


@app.command()
@errors_to_exit
def replay(path: str = typer.Argument(..., help="A directory written by `fuzzfarm download`."),
           variant: Optional[str] = typer.Option(None, "--variant", help="Replay on another variant (e.g. fixed)."),
           original: bool = typer.Option(False, "--original", help="Replay the original input, not the minimized one."),
           quiet: bool = typer.Option(False, "--quiet", "-q", help="Do not print the interleaving trace."),
           as_json: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
    """Re-run a downloaded reproducer here. Exit 1 when it fails as recorded, 0 when it does not fail,
    3 when it fails differently."""
    from fuzzfarm import collector
    from fuzzfarm.engine.target import resolve
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
    v = variant or rec_variant
    if original and art.original is None:
        raise CLIError(f"{path} has no input.orig; replay without --original")
    data = art.original if original else art.minimized
    from fuzzfarm.engine import MAX_INPUT_BYTES
    if len(data) > MAX_INPUT_BYTES:
        raise CLIError(f"{path}: the {'original' if original else 'minimized'} input is {len(data)} bytes, over the "
                       f"{MAX_INPUT_BYTES}-byte limit of a reproducer; download the bucket again")
    res = collector.replay(harness, v, data, trace=True)
    sig, recorded = res.get("signature"), repro.get("signature")
    verdict = "not failing" if not res["failed"] else ("fails as recorded" if sig == recorded else "fails differently")
    code = {"not failing": 0, "fails as recorded": 1, "fails differently": 3}[verdict]
    kind = (repro.get("crash_type") or "").split(" (")[0]
    if verdict == "not failing" and v != rec_variant and resolve(harness).kept_by_fix(kind):
        warnings.append(f"the harness declares that {v!r} still reaches {kind!r} (an upstream hazard the fix "
                        f"keeps): this schedule not failing on {v!r} does not mean the fix holds")
        err.print(f"fuzzfarm: warning: {warnings[-1]}", markup=False)
    if as_json:
        _print_json({"harness": harness, "variant": v, "verdict": verdict, "signature": sig, "recorded_signature": recorded,
                     "warnings": warnings, "outcome": res})
        raise typer.Exit(code)
    if not quiet and res.get("trace"):
        out.print(res["trace"], markup=False)  # the interleaving, ending with the crash dump
    elif res["failed"]:
        out.print(res.get("dump") or f"{res['kind']}: {res.get('message')}", markup=False)
    out.print(f"{harness}/{v}: {verdict} ({len(data)}-byte {'original' if original else 'minimized'} input)", markup=False)
    raise typer.Exit(code)


# ---- demo ----------------------------------------------------------------------------------
DEMO_HARNESSES = ("checker", "cluster-builder")
# Per harness, the strategy its campaigns use in the demo. Both bytes (atheris) since libFuzzer
# runs with -len_control=0 (fuzzfarm.harness.LIBFUZZER_DEFAULTS): first downloadable reproducer
# 3.1 s (checker) and 4.1 s (cluster-builder) after submit, 2 jobs each on 2 cores.
DEMO_STRATEGY = {"checker": "bytes", "cluster-builder": "bytes"}


@app.command()
@errors_to_exit
def demo(duration: str = typer.Option("20", "--duration", "-d", help="Fuzzing time per job."),
         jobs: int = typer.Option(2, "--jobs", "-j", help="Jobs per harness."),
         output: str = typer.Option("fuzzfarm-out", "-o", "--output", help="Where reproducers are downloaded."),
         strategy: Optional[str] = typer.Option(None, "--strategy",
                                                help="bytes | random | pct (default: bytes)."),
         timeout: float = typer.Option(900, "--timeout", help="Give up after this many seconds."),
         as_json: bool = typer.Option(False, "--json", help="JSON summary at the end.")) -> None:
    """Run the whole farm here: redis-server (unless --redis/$FUZZFARM_REDIS_URL), two workers, both
    harnesses' buggy variants; print the buckets and download the reproducers; then stop everything."""
    from fuzzfarm.farm import configure, redis_url
    from fuzzfarm.farm.embedded import Farm
    duration_s = parse_duration(duration)
    _check_usage(jobs, strategy)
    given = redis_url.is_configured(_state.get("redis"))
    url = _url() if given else None
    if given:
        _store(url)
    t0 = time.monotonic()
    err.print("fuzzfarm demo: starting " + ("workers" if given else "redis-server and workers") + " ...", markup=False)
    # a demo shows results in minutes: minimization gets 30 s per bucket unless the environment says otherwise
    worker_env = {"FUZZFARM_MINIMIZE_BUDGET_S": os.environ.get("FUZZFARM_MINIMIZE_BUDGET_S", "30")}
    farm = Farm(url, fuzz_concurrency=max(2, jobs * len(DEMO_HARNESSES)), collect_concurrency=2,
                worker_env=worker_env)
    show = err if as_json else out  # with --json, stdout carries the JSON only
    with farm:
        _state["redis"] = farm.url
        configure(farm.url)
        st = _store(farm.url)
        started = {"redis_pid": farm.redis.proc.pid if farm.redis else None,
                   "worker_pids": [w.proc.pid for w in farm.workers]}
        err.print(f"fuzzfarm demo: redis {redis_url.mask(farm.url)}, workers up in {time.monotonic() - t0:.1f} s "
                  f"(logs in {farm.workdir})", markup=False)
        cids = [_submit(st, h, "buggy", jobs, duration_s, strategy or DEMO_STRATEGY[h]) for h in DEMO_HARNESSES]
        wait_campaigns(st, cids, timeout=timeout)
        downloads = []
        for cid in cids:
            print_buckets(st, cid, console=show)
            for bid in st.campaign_bucket_ids(cid):
                d = os.path.join(output, f"{st.campaign(cid)['harness']}-{bid}")
                if st.artifact(bid):
                    download_bucket(st, bid, d)
                    downloads.append({"campaign": cid, "bucket": bid, "dir": d})
        for d in downloads:
            show.print(f"reproducer {d['bucket']} -> {d['dir']}   (fuzzfarm replay {d['dir']})", markup=False)
        summaries = {cid: st.campaign_summary(cid) for cid in cids}
        for s in summaries.values():
            first = f"{s['first_reproducer_s']:.1f} s" if s["first_reproducer_s"] is not None else "none"
            show.print(f"{s['harness']}/{s['variant']} ({s['strategy']}): {s['execs']:,} execs, {s['crashes']} crashes, "
                       f"{s['buckets']} bucket(s); first downloadable reproducer {first} after submit", markup=False)
        buckets = {c: bucket_rows(st, c) for c in cids}
        st.r.close()
    err.print(f"fuzzfarm demo: done in {time.monotonic() - t0:.0f} s; everything it started is stopped", markup=False)
    if as_json:
        _print_json({"campaigns": summaries, "buckets": buckets, "downloads": downloads, "started": started,
                     "elapsed_s": round(time.monotonic() - t0, 1)})


def main() -> None:
    app()


if __name__ == "__main__":
    main()
