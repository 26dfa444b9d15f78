"""``fuzzfarm demo``: the seed harnesses fuzzed on the local farm (or a given Redis), their
buckets printed and their reproducers downloaded, in one command."""

from __future__ import annotations

import contextlib
import os
import time
from typing import Optional

import typer

from fuzzfarm import views
from fuzzfarm.cli._app import (_check_harness, _print_json, _state, _store, _url, app, check_output_dir,
                               check_timeout, err, errors_to_exit, out, parse_duration, which_farm)
from fuzzfarm.cli.bugs import print_buckets
from fuzzfarm.cli.campaigns import _submit, wait_campaigns


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
        from fuzzfarm.cli import web
        farm_web = started.get("web")  # the local farm keeps its own web view up
        if web_view and farm_web:
            err.print(f"fuzzfarm demo: web view {farm_web} (read-only; stays up with the local farm)", markup=False)
        web = web.start_background(farm_url, err) if web_view and not farm_web else None
        cids = [_submit(st, h, "buggy", jobs, duration_s, strategy or DEMO_STRATEGY.get(h, "mix")) for h in hs]
        wait_campaigns(st, cids, timeout=timeout)
        downloads = []
        for cid in cids:
            print_buckets(st, cid, console=show, flat=False)
            for bid in st.campaign_bucket_ids(cid):
                d = os.path.join(output, f"{st.campaign(cid)['harness']}-{bid}")
                if st.artifact(bid):
                    views.download_bucket(st, bid, d)
                    downloads.append({"campaign": cid, "bucket": bid, "dir": d})
        from fuzzfarm.cli.path import path_advice, typed
        ff = typed("fuzzfarm")  # every command printed runs as printed in the user's shell
        for d in downloads:
            show.print(f"reproducer {d['bucket']} -> {d['dir']}   ({ff} replay {d['dir']})", markup=False)
        summaries = {cid: st.campaign_summary(cid) for cid in cids}
        for s in summaries.values():
            first = f"{s['first_reproducer_s']:.1f} s" if s["first_reproducer_s"] is not None else "none"
            show.print(f"{s['harness']}/{s['variant']} ({s['strategy']}): {s['execs']:,} execs, {s['crashes']} crashes, "
                       f"{s['buckets']} bucket(s); first downloadable reproducer {first} after submit", markup=False)
        buckets = {c: views.bucket_rows(st, c) for c in cids}
        if web is not None:
            web.stop()
        st.close()
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
    from fuzzfarm.cli.local import ensure_up
    from fuzzfarm.farm import local
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

