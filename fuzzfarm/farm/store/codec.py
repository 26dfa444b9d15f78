"""How a hash field's value is written to Redis and read back (every value is text there)."""

from __future__ import annotations

import json
import re


def _enc(v) -> str:
    """Hash field encoding: str as is, everything else JSON (so lists, bools, None round-trip)."""
    if isinstance(v, str):
        return v
    return json.dumps(v)


# Fields that are always text, even when they look like a number (hex digests, ids, messages).
TEXT_FIELDS = frozenset({"id", "campaign", "harness", "variant", "strategy", "signature", "harness_hash",
                         "version", "input_sha256", "first_input", "minimized_sha256", "message", "error",
                         "state", "kind", "exc_class", "crash_type", "worker", "artifact", "log_tail",
                         "dump", "scenario", "fix_variant", "fix_signature", "fix_verdict", "fix_summary",
                         "masked_bucket", "masked_by_fix_of", "group", "object", "object_site", "racing_site",
                         "go_racing_site"})
_NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?")


def _dec(k: str, v: str):
    """Inverse of :func:`_enc`: JSON-looking values of non-text fields are decoded."""
    if k in TEXT_FIELDS or not v:
        return v
    if v[0] in "[{" or v in ("true", "false", "null") or _NUMBER.fullmatch(v):
        try:
            return json.loads(v)
        except ValueError:
            return v
    return v
