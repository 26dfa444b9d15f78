"""``fuzzfarm crashes``, ``fuzzfarm download`` and ``fuzzfarm replay``: the buckets a farm found,
their reproducers, and a reproducer re-run here."""

from __future__ import annotations

import os
import re
from typing import Optional

import typer
from rich.console import Console

import fuzzfarm
from fuzzfarm import harness as H
from fuzzfarm.cli import tables as T
from fuzzfarm.cli._app import CLIError, _print_json, _store, app, check_output_dir, err, errors_to_exit, out


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
        from fuzzfarm.cli.groups import print_groups
        return print_groups(st, rows, f"groups of buckets{' of ' + campaign if campaign else ''}", console,
                            wide=wide)
    if not rows:
        console.print("no buckets" + (f" for campaign {campaign}" if campaign else ""), markup=False)
        return
    from fuzzfarm.cli.groups import annotate
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
    from fuzzfarm.cli.groups import annotate
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
    os.makedirs(out_dir, exist_ok=True)
    written = collector.write_artifact(files, out_dir)
    return written + collector.write_artifact(test, out_dir)


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
    out_dir = output or os.path.join("fuzzfarm-out", bucket)
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
    from fuzzfarm.cli.path import typed
    out.print(f"{bucket} -> {out_dir} ({len(written)} files); replay with: {typed('fuzzfarm')} replay {out_dir}; "
              f"regression test: {typed('pytest')} {out_dir}", markup=False)


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

