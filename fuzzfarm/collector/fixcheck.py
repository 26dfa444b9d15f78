"""Fix verification: replay a reproducer against the harness's fixed variant."""

from __future__ import annotations

from fuzzfarm.engine.target import resolve

from .replay import replay


def fix_check(harness, fixed_variant: str, data: bytes, *, expected_signature: str | None = None,
              buggy_variant: str | None = None, timeout_s: float = 30.0) -> dict:
    """Run ``data`` once, in a fresh process, on ``fixed_variant``.

    ``fixed`` is True when it does not fail with the bug's signature: ``expected_signature``,
    or else the signature ``data`` gives on ``buggy_variant`` (default: the harness's first
    variant). What the fixed variant did instead is recorded: ``failed``, ``kind``,
    ``crash_type``, ``message``, ``signature``. Raises HarnessError for an unknown harness or
    variant, ValueError for an oversized input."""
    target = resolve(harness)
    if expected_signature is None:
        buggy = buggy_variant or (target.declared_variants() or ("buggy",))[0]
        expected_signature = replay(target, buggy, data, timeout_s=timeout_s)["signature"]
    out = replay(target, fixed_variant, data, timeout_s=timeout_s)
    return {
        "variant": fixed_variant,
        "failed": bool(out["failed"]),
        "kind": out["kind"],
        "crash_type": out["crash_type"],
        "message": out["message"],
        "signature": out["signature"],
        "expected_signature": expected_signature,
        "fixed": out["signature"] is None or out["signature"] != expected_signature,
    }
