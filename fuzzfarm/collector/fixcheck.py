"""One replay of a reproducer on the harness's fixed variant (``replay_on_fixed``; the farm's
whole fix-check step, every check of docs/VERDICTS.md, is ``farm.triage.fix_check``)."""

from __future__ import annotations

from fuzzfarm.harness.target import resolve

from . import verdict as V
from .replay import replay


def replay_on_fixed(harness, fixed_variant: str, data: bytes, *, expected_signature: str | None = None,
                    buggy_variant: str | None = None, timeout_s: float = 30.0, expected_go: tuple | None = None) -> dict:
    """Run ``data`` once, in a fresh process, on ``fixed_variant``.

    ``verdict`` (:mod:`.verdict`): ``fixed`` when the run does not fail, ``NO`` when it fails
    with the bug's signature (``expected_signature``, or else the signature ``data`` gives on
    ``buggy_variant``, default: the harness's first variant) or with its crash type at its Go
    crash state (``expected_go``, :func:`.verdict.go_failure`; from that buggy replay when
    ``expected_signature`` is not given), ``fails differently`` for any
    other failure, a timeout or a hang included; ``fixed`` is True only for the first. What the
    fixed variant did is recorded: ``failed``, ``kind``, ``crash_type``, ``crash_state``,
    ``message``, ``signature``; ``summary`` is the verdict as shown
    (``fails differently: KIND at STATE``). Raises HarnessError for an unknown harness or
    variant, ValueError for an oversized input."""
    target = resolve(harness)
    if expected_signature is None:
        buggy = buggy_variant or (target.declared_variants() or ("buggy",))[0]
        bug = replay(target, buggy, data, timeout_s=timeout_s)
        expected_signature, expected_go = bug["signature"], expected_go or V.go_failure(bug)
    out = replay(target, fixed_variant, data, timeout_s=timeout_s)
    verdict = V.run_verdict(expected_signature, out, expected_go)
    return {
        "variant": fixed_variant,
        "failed": bool(out["failed"]),
        "kind": out["kind"],
        "crash_type": out["crash_type"],
        "message": out["message"],
        "crash_state": list(out.get("crash_state") or []),
        "go_crash_state": list(out.get("go_crash_state") or []),
        "crash_state_shape": out.get("crash_state_shape") or "",
        "signature": out["signature"],
        "expected_signature": expected_signature,
        "verdict": verdict,
        "summary": V.describe(verdict, out),
        "fixed": verdict == V.FIXED,
    }
