"""Root-cause groups: a second level above buckets. A bucket is exact (one signature: crash type
and the top frames of the failing goroutine); one bug reached along different paths makes
several buckets, and a group puts them back together.

What the runtime knows decides the group, per harness and variant:

* a hazard the fix keeps (the harness's ``FIXED_MAY_FAIL``) is its own named group, never
  merged with a bug;
* a map failure (``concurrent map writes`` / ``... read and map write`` / ``... iteration and
  map write``) groups by the map whose operation failed (the runtime's label of that object,
  ``GoFailure.obj``): the writes, reads and iterations racing on one shared map are one bug;
* any other failure groups by its crash type and the operation that failed, the innermost
  project frame (the checker's nil cancel, reached from ``delete_and_stop``, ``add`` or
  ``dispose``, is one ``goroutine panic (TypeError)`` in ``ObjectChecker.stop``).

Users override this (``fuzzfarm group split|merge``): an override maps a bucket to a group id
and wins over the computed one. Grouping never touches a bucket or its inputs.
"""

from __future__ import annotations

import hashlib

from fuzzfarm.signature import hazard_name

MAP_KINDS = ("concurrent map writes", "concurrent map read and map write", "concurrent map iteration and map write")


def root_cause(bucket: dict) -> tuple[str, str]:
    """``(key, name)`` of the group a bucket belongs to by default; ``key`` is stable text."""
    harness, variant = bucket.get("harness") or "?", bucket.get("variant") or "?"
    kind = bucket.get("kind") or "failure"
    state = list(bucket.get("crash_state") or [])
    top = state[0] if state else "(no project frames)"
    if bucket.get("fix_keeps"):
        key, name = f"hazard|{hazard_name(kind, state)}", f"hazard: {kind} at {top}"
    elif kind in MAP_KINDS:
        obj = bucket.get("object") or ""
        key = f"map|{obj}" if obj else f"map-at|{top}"
        name = f"concurrent map access to map {obj}" if obj else f"concurrent map access at {top}"
    else:
        ctype = bucket.get("crash_type") or kind
        key, name = f"op|{ctype}|{top}", f"{ctype} in {top}"
    return f"{harness}|{variant}|{key}", f"{harness}/{variant}: {name}"


def group_id(key: str) -> str:
    """Deterministic id of a computed group (``g`` + 10 hex digits)."""
    return "g" + hashlib.sha1(key.encode()).hexdigest()[:10]


def group_buckets(buckets: list[dict], overrides: dict[str, str] | None = None,
                  names: dict[str, str] | None = None) -> list[dict]:
    """Groups of ``buckets`` in order of first appearance: ``{"id", "name", "buckets": [...],
    "hazard": bool, "manual": bool}``. ``overrides``: bucket id -> group id set by the user;
    ``names``: group id -> name of a group the user made."""
    overrides, names = overrides or {}, names or {}
    groups: dict[str, dict] = {}
    for b in buckets:
        key, name = root_cause(b)
        gid = overrides.get(b.get("id") or "", group_id(key))
        g = groups.get(gid)
        if g is None:
            g = groups[gid] = {"id": gid, "name": names.get(gid, name), "buckets": [], "hazard": True,
                               "manual": gid in names}
        g["buckets"].append(b)
        g["hazard"] = g["hazard"] and bool(b.get("fix_keeps"))
    return list(groups.values())
