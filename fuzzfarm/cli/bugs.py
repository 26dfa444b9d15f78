"""``fuzzfarm crashes``, ``fuzzfarm download`` and ``fuzzfarm replay``: the buckets a farm found,
their reproducers, and a reproducer re-run here."""

from __future__ import annotations

import os
import re
import shlex
from typing import Optional

import typer
from rich.console import Console

import fuzzfarm
from fuzzfarm import harness as H
from fuzzfarm import views
from fuzzfarm.cli import tables as T
from fuzzfarm.cli._app import CLIError, _print_json, _store, app, check_output_dir, err, errors_to_exit, out


def print_buckets(st, campaign: str | None = None, console: Console = out, wide: bool = False,
                  flat: bool = True) -> None:
    """The buckets of ``campaign`` (or all), grouped by root cause unless ``flat``."""
    rows = views.bucket_rows(st, campaign)
    wide = T.is_wide(console.width, wide)
    if not rows:
        console.print("no buckets" + (f" for campaign {campaign}" if campaign else ""), markup=False)
    elif flat:  # the flat table names each bucket's group too
        console.print(T.bucket_table(rows, f"buckets{' of ' + campaign if campaign else ''}", wide=wide),
                      soft_wrap=False)
    else:
        console.print(T.group_table(views.groups(rows), f"groups of buckets{' of ' + campaign if campaign else ''}",
                                    wide=wide), soft_wrap=False)


@app.command()
@errors_to_exit
def crashes(campaign: Optional[str] = typer.Argument(None, help="Campaign id (default: every bucket)."),
            wide: bool = typer.Option(False, "--wide", help="Every column (crash state, sizes, preemptions) in one row."),
            flat: bool = typer.Option(False, "--flat", help="One row per bucket, no groups."),
            as_json: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
    """Root-cause groups, each with its buckets (one per signature) under it; --flat: buckets only."""
    st = _store()
    if as_json:
        return _print_json(views.bucket_rows(st, campaign))
    print_buckets(st, campaign, wide=wide, flat=flat)


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
    written = views.download_bucket(st, bucket, out_dir, overwrite=force)
    b = st.bucket(bucket)
    if as_json:
        return _print_json({"bucket": bucket, "dir": os.path.abspath(out_dir), "files": written, "state": b.get("state")})
    if b.get("state") == "proving":  # minimized, verified and fix-checked: only the proof is still running
        err.print(f"fuzzfarm: note: bucket {bucket}'s proof is still running; the reproducer and its fix "
                  f"verdict are final", markup=False)
    elif b.get("state") != "done":
        err.print(f"fuzzfarm: warning: bucket {bucket} is still in triage ({b.get('state')}): this reproducer is "
                  f"not minimized/verified yet", markup=False)
    from fuzzfarm.cli.path import typed, typed_python
    q = shlex.quote(out_dir)  # the commands run as printed, whatever the directory's name
    # the regression test through this interpreter: a bare `pytest` on PATH may be another venv's,
    # without the harness (a `fuzzfarm venv` reaches pytest through its base, not a script of its own)
    out.print(f"{bucket} -> {out_dir} ({len(written)} files); replay with: {typed('fuzzfarm')} replay {q}; "
              f"regression test: {typed_python()} -m pytest {q}", markup=False)


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
    from fuzzfarm.harness.target import resolve
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
        bound = views.max_starvation_label(target.max_starvation or H.max_starvation_text(H.max_starvation_s()))
    out.print(f"{harness}/{v}: {verdict} ({len(data)}-byte {'original' if original else 'minimized'} input, "
              f"starvation bound {bound})", markup=False)
    if res.get("failed"):  # what the failure needs, against the realism bound (docs/timing.md)
        out.print(f"starvation: {H.starvation_need(res.get('starvation'), H.starved_goroutines(res))}", markup=False)
    raise typer.Exit(code)

