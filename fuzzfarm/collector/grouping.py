"""Root-cause groups: a second level above buckets. A bucket is exact (one signature: crash type
and the top frames of the failing goroutine); one bug reached along different paths makes
several buckets, and a group puts them back together.

What the runtime knows decides the group, per harness and variant:

* a hazard the fix keeps (the harness's ``FIXED_MAY_FAIL``) is its own named group, never
  merged with a bug;
* map failures (``concurrent map writes`` / ``... read and map write`` / ``... iteration and
  map write``) group by what raced: two buckets are one bug when they failed on the same map
  or raced with a writer in the same function (the goroutine the runtime caught writing the
  map, ``GoFailure.racing_site``, and for ``concurrent map writes`` the failing goroutine, a
  writer too), and
  so on transitively: reads, iterations and writes racing on the shared options every cluster
  of the cluster-builder gets (``DefaultNamespaces``, ``ByObject``, written in ``default_opts``
  and ``new_multi_namespace_cache``) are one group. Without either, by the failing frame;
* any other failure groups by its crash type and the operation that failed, the innermost
  project frame (the checker's nil cancel, reached from ``delete_and_stop``, ``add`` or
  ``dispose``, is one ``goroutine panic (TypeError)`` in ``ObjectChecker.stop``).

"The same map" is the same object across runs: its declared name (``gosim.Map(name=...)``), else
its creation site (``GoFailure.obj_site``: ``GoFunc (file.go:line)`` when the code that made it
is declared with ``go_func``, else ``func (file.py:line)``), never the per-run label of an unnamed
map (``map#2``: the second object that run made, which in another scenario is another map).

Users override this (``fuzzfarm group split|merge``): an override maps a bucket to a group id
and wins over the computed one. Grouping never touches a bucket or its inputs.
"""

from __future__ import annotations

import hashlib

import re

from fuzzfarm.harness.signature import hazard_name

# gosim's label of an unnamed object: a per-run serial (``map#2``), no identity across runs
_SERIAL_LABEL = re.compile(r"^[A-Za-z]+#\d+$")

MAP_KINDS = ("concurrent map writes", "concurrent map read and map write", "concurrent map iteration and map write")


def map_identity(bucket: dict) -> str:
    """What a map bucket's map is across runs: its creation site or declared name
    (``object_site``), else its label when that is a declared name (a bucket recorded before
    creation sites were), else "" (an unnamed map's ``map#N`` identifies nothing)."""
    site = bucket.get("object_site") or ""
    if site:
        return site
    obj = bucket.get("object") or ""
    return "" if _SERIAL_LABEL.match(obj) else obj


def root_cause(bucket: dict) -> tuple[str, str]:
    """``(key, name)`` of the group a bucket belongs to by default; ``key`` is stable text."""
    harness, variant = bucket.get("harness") or "?", bucket.get("variant") or "?"
    kind = bucket.get("kind") or "failure"
    state = list(bucket.get("crash_state") or [])
    top = state[0] if state else "(no project frames)"
    shown_top = _go_names(bucket).get(top, top)  # names read in Go's terms where declared; keys stay Python's
    if bucket.get("fix_keeps"):
        key, name = f"hazard|{hazard_name(kind, state)}", f"hazard: {kind} at {shown_top}"
    elif kind in MAP_KINDS:
        writer, obj = bucket.get("racing_site") or "", map_identity(bucket)
        if writer:
            key = f"map-writer|{writer}"
            name = f"concurrent map access racing with the write in {_go_names(bucket).get(writer, writer)}"
        elif obj:
            key, name = f"map|{obj}", f"concurrent map access to map {obj}"
        else:
            key, name = f"map-at|{top}", f"concurrent map access at {shown_top}"
    else:
        ctype = bucket.get("crash_type") or kind
        key, name = f"op|{ctype}|{top}", f"{ctype} in {shown_top}"
        if len(state) > 1 and _sides(bucket):  # a race's two accesses, a lock cycle's goroutines: both sides
            names = _go_names(bucket)
            name = f"{ctype} between {' / '.join(names.get(p, p) for p in state)}"
    return f"{harness}|{variant}|{key}", f"{harness}/{variant}: {name}"


def _sides(bucket: dict) -> bool:
    """The crash state's frames are sides (a race's two accesses, a lock cycle's goroutines),
    not a call chain (``GoFailure.crash_state_shape``; a data race recorded before it: a race)."""
    return (bucket.get("crash_state_shape") or "") in ("race", "lock cycle") or bucket.get("kind") == "data race"


def _go_names(bucket: dict) -> dict[str, str]:
    """Python function -> Go function for the frames this bucket names (the racing writer and
    the crash state's frames, which ``go_crash_state`` holds in the same order), where the port
    declares them (``gosim.go_func``)."""
    out = {}
    if bucket.get("racing_site") and bucket.get("go_racing_site"):
        out[bucket["racing_site"]] = bucket["go_racing_site"]
    py, go = list(bucket.get("crash_state") or []), list(bucket.get("go_crash_state") or [])
    for p, g in zip(py, go):
        out.setdefault(p, g.split(" (", 1)[0])
    return out


def group_id(key: str) -> str:
    """Deterministic id of a computed group (``g`` + 10 hex digits)."""
    return "g" + hashlib.sha1(key.encode()).hexdigest()[:10]


def _map_nodes(bucket: dict) -> list[str]:
    """What a map bucket raced on: its map and the functions of the writers in the race (the
    one the runtime caught writing and, for ``concurrent map writes``, the failing one too)."""
    pre = f"{bucket.get('harness') or '?'}|{bucket.get('variant') or '?'}|"
    obj = map_identity(bucket)
    nodes = [pre + f"map-obj|{obj}"] if obj else []
    writers = [bucket.get("racing_site")]
    if bucket.get("kind") == "concurrent map writes" and nodes:
        writers.append((bucket.get("crash_state") or [None])[0])
    nodes += [pre + f"map-writer|{w}" for w in writers if w]
    return nodes


def _map_components(buckets: list[dict]) -> dict[int, tuple[str, str]]:
    """Index of each non-hazard map bucket with race information -> (key, name) of its
    connected component (buckets linked by a shared map or a shared writer function)."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    members = {}
    for i, b in enumerate(buckets):
        if b.get("fix_keeps") or (b.get("kind") or "") not in MAP_KINDS or not _map_nodes(b):
            continue
        nodes = _map_nodes(b)
        members[i] = find(nodes[0])  # registered even when it is its bucket's only node
        for n in nodes[1:]:
            ra, rb = find(nodes[0]), find(n)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
    comp: dict[str, list[str]] = {}
    for n in list(parent):
        comp.setdefault(find(n), []).append(n)
    go_by_root: dict[str, dict[str, str]] = {}
    for j, node in members.items():
        go_by_root.setdefault(find(node), {}).update(_go_names(buckets[j]))
    out = {}
    for i, node in members.items():
        root = find(node)
        nodes = sorted(comp[root])
        maps = [n.split("|map-obj|", 1)[1] for n in nodes if "|map-obj|" in n]
        writers = [n.split("|map-writer|", 1)[1] for n in nodes if "|map-writer|" in n]
        b = buckets[i]
        shown = go_by_root.get(root, {})  # the writers in Go's names where declared (the keys stay Python's)
        writers = [shown.get(w, w) for w in writers]

        def few(xs):
            return ", ".join(xs[:3]) + (", ..." if len(xs) > 3 else "")
        name = (f"{b.get('harness') or '?'}/{b.get('variant') or '?'}: concurrent map access"
                + (f" to {few(maps)}" if maps else "") + (f", racing with writes in {few(writers)}" if writers else ""))
        out[i] = (root.rsplit("|map-", 1)[0] + "|map|" + root, name)
    return out


def group_buckets(buckets: list[dict], overrides: dict[str, str] | None = None,
                  names: dict[str, str] | None = None) -> list[dict]:
    """Groups of ``buckets`` in order of first appearance: ``{"id", "name", "buckets": [...],
    "hazard": bool, "manual": bool}``. ``overrides``: bucket id -> group id set by the user;
    ``names``: group id -> name of a group the user made."""
    overrides, names = overrides or {}, names or {}
    groups: dict[str, dict] = {}
    maps = _map_components(buckets)
    for i, b in enumerate(buckets):
        key, name = maps.get(i) or root_cause(b)
        gid = overrides.get(b.get("id") or "", group_id(key))
        g = groups.get(gid)
        if g is None:
            g = groups[gid] = {"id": gid, "name": names.get(gid, name), "buckets": [], "hazard": True,
                               "manual": gid in names}
        g["buckets"].append(b)
        g["hazard"] = g["hazard"] and bool(b.get("fix_keeps"))
    return list(groups.values())
