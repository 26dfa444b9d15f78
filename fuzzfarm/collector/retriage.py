"""Re-triage a downloaded reproducer under the harness code installed here (``fuzzfarm replay
--retriage DIR``).

A reproducer records the source hash of the harness it was triaged with. Once the port or the
harness changes (the guide's port edit), its minimized input may no longer steer the same
interleaving, and its fix verdict was decided for other code. Re-triage runs the farm's triage
steps again, here and without a farm, on the recorded input: replay the original input (the
minimized one when there is none, or when the original no longer fails), minimize it for the
signature it gives now, verify it in fresh processes, check the fix on the harness's ``fixed``
variant, and write a new reproducer (new harness hash, verdicts, ``retriaged_from``) beside the
old one, which stays as it was. The farm's budgets apply (the same ``FUZZFARM_*`` settings).
The farm's buckets are not touched: this is the local answer; a campaign under the new code
re-checks the verdict itself when it finds the bug again (farm/recheck.py).
"""

from __future__ import annotations

import json
import os

from fuzzfarm import harness as H
from fuzzfarm.harness.target import resolve

from . import verdict as V
from .artifact import MANIFEST, REPRO, Artifact, ArtifactError, build_artifact, load_artifact, \
    recorded_max_starvation, write_artifact
from .budgets import FIX_BUDGET_S, FIX_FLAKY_REPLAYS, FIX_PCT_RUNS, FIX_RANDOM_RUNS, MINIMIZE_BUDGET_S, VERIFY_RUNS
from .fixverify import fix_verify
from .minimize import minimize
from .replay import replay
from .verify import verify


# replay's exit codes: 1 fails as recorded, 3 fails differently, 0 no longer fails
EXIT = {"fails as recorded": 1, "fails differently": 3, "no longer fails": 0}


def output_dir(path: str, harness_hash: str) -> str:
    """Where the re-triaged reproducer goes: beside ``path``, named by the new harness hash."""
    return f"{os.path.normpath(path)}-{harness_hash[:12]}"


def retriage(art: Artifact, *, version: str, minimize_budget_s: float = MINIMIZE_BUDGET_S,
             verify_runs: int = VERIFY_RUNS, fix_budget_s: float = FIX_BUDGET_S) -> dict:
    """The triage of ``art``'s input under the installed harness: ``verdict`` (``fails as
    recorded`` / ``fails differently`` / ``no longer fails``), ``harness_hash`` and
    ``recorded_harness_hash``, ``signature`` and ``recorded_signature``, and, unless it no
    longer fails, ``files`` (the new reproducer, ``build_artifact``'s), ``minimized_size``,
    ``verify`` [ok, n] and ``fix`` (the fix verdict, or None without a fixed variant). Raises
    HarnessError when the harness is not installed here."""
    repro = art.repro
    harness, variant = repro.get("harness"), repro.get("variant")
    if not harness or not variant:
        raise ArtifactError(f"{art.directory}/repro.json names no harness/variant; this is not a fuzzfarm reproducer")
    local_hash = H.get(harness).source_hash()
    try:
        target = resolve(harness, recorded_max_starvation(repro))
    except ValueError as e:
        raise ArtifactError(f"{art.directory}/repro.json: max_starvation_s {e}; download the bucket again") from None
    recorded = repro.get("signature")
    res = {"harness": harness, "variant": variant, "harness_hash": local_hash,
           "recorded_harness_hash": repro.get("harness_hash"), "recorded_signature": recorded}
    start, out = None, None
    for data in (art.original, art.minimized):  # the input as found first: it has the most room to steer
        if data is not None:
            out = replay(target, variant, data)
            if out["failed"]:
                start = data
                break
    if start is None:
        return {**res, "verdict": "no longer fails", "signature": None, "files": None,
                "message": out.get("message") if out else None}
    sig = out["signature"]
    same = sig == recorded or (V.go_failure(repro) is not None and V.go_failure(out) == V.go_failure(repro))
    m = minimize(target, variant, start, expected_signature=sig, budget_s=minimize_budget_s)
    data = m.data if m.signature == sig else start  # never a reproducer of another bug (docs/TRAPS.md#g3)
    ver = verify(target, variant, data, n=verify_runs, expected_signature=sig)
    ok = sum(1 for s in ver.signatures if s == sig)
    bucket = {"id": repro.get("bucket"), "harness": harness, "variant": variant, "signature": sig,
              "verify_ok": ok, "verify_n": len(ver.signatures), "reproducible": bool(ver.reproducible),
              "flaky": 0 < ok < len(ver.signatures), "verify_hash_seeds": list(getattr(ver, "hash_seeds", None) or []),
              "hash_seed_dependent": getattr(ver, "hash_seed_dependent", None),
              "max_starvation_s": repro.get("max_starvation_s")}
    variants = target.declared_variants() or ()
    fv = "fixed" if "fixed" in variants and variant != "fixed" else None
    if fv:
        ev = fix_verify(target, fv, data, expected_signature=sig, original=start, buggy_ok=ok,
                        buggy_n=len(ver.signatures), flaky=bucket["flaky"], random_runs=FIX_RANDOM_RUNS,
                        pct_runs=FIX_PCT_RUNS, flaky_replays=FIX_FLAKY_REPLAYS, budget_s=fix_budget_s,
                        expected_go=V.go_failure(out))
        ev.pop("other", None)  # the farm files that as its own bucket; here the summary names it
        if target.kept_by_fix(out.get("kind") or "", out.get("crash_state") or []):
            ev["verdict"] = ev["summary"] = "kept (hazard)"
        bucket["fix_evidence"] = ev
    traced = replay(target, variant, data, trace=True)
    files = build_artifact(bucket=bucket, original=start, minimized=data, outcome=traced, harness_hash=local_hash,
                           version=version)
    files = _with_repro(files, retriaged_from={"harness_hash": repro.get("harness_hash"), "signature": recorded,
                                               "fuzzfarm_version": repro.get("fuzzfarm_version")})
    return {**res, "verdict": "fails as recorded" if same else "fails differently", "signature": sig,
            "files": files, "minimized_size": len(data), "original_size": len(start),
            "verify": [ok, len(ver.signatures)],
            "fix": (bucket["fix_evidence"].get("summary") or bucket["fix_evidence"]["verdict"]) if fv else None}


def _with_repro(files: dict[str, bytes], **fields) -> dict[str, bytes]:
    """``files`` with ``fields`` added to ``repro.json`` and the manifest redone."""
    from .artifact import _sha256, FORMAT
    out = dict(files)
    repro = json.loads(out[REPRO])
    repro.update(fields)
    out[REPRO] = json.dumps(repro, indent=2, sort_keys=True).encode() + b"\n"
    body = {n: d for n, d in out.items() if n != MANIFEST}
    out[MANIFEST] = json.dumps({"format": FORMAT, "files": {n: _sha256(d) for n, d in sorted(body.items())}},
                               indent=2, sort_keys=True).encode() + b"\n"
    return out


def retriage_dir(path: str, *, version: str, **budgets) -> dict:
    """``fuzzfarm replay --retriage DIR``: :func:`retriage` of the reproducer in ``path``, the new
    one written to :func:`output_dir` (refused when that holds files already: nothing is
    overwritten); adds ``dir`` (None when nothing was written), ``text`` (what to print) and
    ``exit`` (replay's codes). Raises ArtifactError for an unusable directory."""
    art = load_artifact(path)
    harness = art.repro.get("harness")
    if harness:  # refused before any run: the new directory is named by the installed code's hash
        new_dir = output_dir(path, H.get(harness).source_hash())
        if os.path.isdir(new_dir) and os.listdir(new_dir):
            raise ArtifactError(f"{new_dir} exists and is not empty (an earlier re-triage under this harness "
                                f"code?); remove it and run again")
    res = retriage(art, version=version, **budgets)
    new_dir = None
    if res["files"] is not None:
        new_dir = output_dir(path, res["harness_hash"])
        write_artifact(res["files"], new_dir)
    old = (res["recorded_harness_hash"] or "none recorded")[:12]
    lines = [f"{res['harness']}/{res['variant']}: re-triaged under harness hash {res['harness_hash'][:12]} "
             f"(recorded: {old}): {res['verdict']}"]
    if res["files"] is not None:
        if res["signature"] != res["recorded_signature"]:
            lines.append(f"signature: {res['signature']} (recorded: {res['recorded_signature']})")
        lines.append(f"minimized: {res['original_size']} -> {res['minimized_size']} bytes; reproducible "
                     f"{res['verify'][0]}/{res['verify'][1]} fresh-process replays")
        lines.append(f"fix check: {res['fix'] or 'no fixed variant'}")
        lines.append(f"wrote {new_dir}; replay with: fuzzfarm replay {new_dir}")
    else:
        lines.append("neither the original nor the minimized input fails under this code; nothing written")
    return {**{k: v for k, v in res.items() if k != "files"}, "dir": new_dir, "text": "\n".join(lines),
            "exit": EXIT[res["verdict"]]}
