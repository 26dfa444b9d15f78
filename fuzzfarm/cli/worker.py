"""``fuzzfarm harnesses`` (what workers can run) and ``fuzzfarm worker`` (a worker of the fleet)."""

from __future__ import annotations

import contextlib
import io
import os
import sys
from typing import Optional

import typer
from rich.table import Table
from rich.text import Text

from fuzzfarm import harness as H
from fuzzfarm.cli import tables as T
from fuzzfarm.cli._app import ID_COLUMNS, CLIError, _print_json, _store, _url, app, err, errors_to_exit, out


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
    _store(url).close()  # reachable (one line when not)
    from fuzzfarm.farm import aclcheck, store
    gaps = aclcheck.missing(store.connect(url))  # the Redis user's rights, named in one line (exit 2) when missing
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

