"""A distributed ``dfs`` search: the schedule tree of one scenario, cut into subtrees that
workers of the ``fuzz`` queue explore (no Celery here; the task is ``explore_tasks``).

Redis layout (prefix ``fuzzfarm:explore:``): ``<eid>`` hash (spec, counters), ``<eid>:items``
hash (item id -> JSON list of ``[decisions, preemptions]``), ``<eid>:done`` and
``<eid>:cancelled`` sets of item ids, ``<eid>:classes`` set of schedule keys, ``<eid>:failures``
list, ``<eid>:stop`` flag; ``ids`` zset of explorations.

Why the counts are exact: a subtree task explores a fixed number of runs (not a time slice),
so the subtrees it leaves, and their ids (``<parent>.<k>``), are the same on every delivery; it
writes its children and enqueues them *before* marking itself done, and adds its runs to the
counters only when that mark is new. Schedules are the union of every subtree's schedule keys
(a Redis set), equal to one local search's (``engine.explore``). A subtree whose worker is killed
is delivered again and redone; a duplicate delivery changes nothing. On the first failure the
``stop`` flag makes every later subtree task return at once (``cancelled``), unless the search
was submitted with ``all_failures``.
"""

from __future__ import annotations

import secrets
import time
from typing import Callable

from fuzzfarm.farm import store as S
from fuzzfarm import settings

ROOT = "r"
ROOT_RUNS = 40  # the root stops early so that its subtrees spread over the workers at once
SUBTREE_RUNS = settings.number("FUZZFARM_DFS_SUBTREE_RUNS", 400, integer=True, above=True)
SPLIT = 8  # subtrees a task leaves behind when it stops on its run budget


def create(st: S.Store, spec: dict, data: bytes) -> str:
    """Record a search (``spec``: harness, variant, bound, reduce, all_failures, harness_hash,
    version) with its root subtree. Returns the exploration id (``dfs-...``)."""
    eid = "dfs-" + secrets.token_hex(4)
    now = time.time()
    rec = {**spec, "id": eid, "created": now, "data_b64": S.b64(data), "runs": 0, "pruned": 0}
    st.create_exploration(eid, rec, ROOT, [[[], 0]], now)
    return eid


def spec_of(st: S.Store, eid: str) -> dict | None:
    return st.exploration(eid)


def ids(st: S.Store) -> list[str]:
    return st.exploration_ids()


def _explore_child(spec: dict, items: list, max_runs: int) -> dict:
    """Run ``items`` in a fresh process (harness code never runs in the worker itself)."""
    from fuzzfarm.harness import child
    from fuzzfarm.harness.target import resolve

    target = resolve(spec["harness"], spec.get("max_starvation_s"))
    run = child.run_child("fuzzfarm.engine.explore", target, spec["variant"], S.unb64(spec["data_b64"]),
                          {"items": items, "bound": spec["bound"], "max_runs": max_runs,
                           "reduce": bool(spec.get("reduce", True)), "all_failures": bool(spec.get("all_failures"))},
                          timeout=settings.number("FUZZFARM_DFS_SUBTREE_TIMEOUT_S", 600.0, above=True),
                          memory_limit_mb=2048)
    if run.result is not None:
        return run.result
    if run.load_error() is not None:
        return {"error": f"HarnessError: {run.load_error()}"}
    return {"error": f"the subtree process {'timed out' if run.rc is None else f'exited with code {run.rc}'}"}


def _chunks(items: list, n: int) -> list[list]:
    if not items:
        return []
    n = min(n, len(items))
    return [items[i::n] for i in range(n)]


def run_subtree(st: S.Store, eid: str, iid: str, *, enqueue: Callable[[str, str], None],
                explore_child: Callable = _explore_child) -> str:
    """Explore subtree ``iid`` of search ``eid`` (idempotent; see the module docstring)."""
    if st.subtree_done(eid, iid):
        return "duplicate"
    spec = spec_of(st, eid)
    items = st.subtree(eid, iid)
    if spec is None or items is None:
        return "unknown"
    if st.exploration_stopped(eid) and not spec.get("all_failures"):
        st.cancel_subtree(eid, iid)
        return "cancelled"
    res = explore_child(spec, items, ROOT_RUNS if iid == ROOT else SUBTREE_RUNS)
    if res.get("error"):
        st.cancel_subtree(eid, iid, error=res["error"])
        st.stop_exploration(eid, "error")
        return "error"
    st.add_schedule_classes(eid, res.get("classes") or [])
    if res.get("failure"):
        f = {**res["failure"], "reproducer": res.get("reproducer"), "subtree": iid}
        f.pop("decisions", None)
        st.add_exploration_failure(eid, iid, f)
        if not spec.get("all_failures"):
            st.stop_exploration(eid, "failure")
    children = [(f"{iid}.{k}", ch) for k, ch in enumerate(_chunks(res.get("pending") or [], SPLIT))]
    st.add_subtrees(eid, children)
    for cid, _ in children:
        enqueue(eid, cid)
    st.finish_subtree(eid, iid, int(res.get("runs", 0)), int(res.get("pruned", 0)), res.get("tolerated") or {})
    return "done"


def summary(st: S.Store, eid: str) -> dict | None:
    """Progress and, once settled, the result: ``exhausted`` only when every subtree was explored
    and no failure stopped the search; ``line`` never says "proven" otherwise."""
    spec = spec_of(st, eid)
    if spec is None:
        return None
    p = st.exploration_progress(eid)
    total, done, cancelled, failures, errors = p["total"], p["done"], p["cancelled"], p["failures"], p["errors"]
    settled = done + cancelled >= total
    n = p["classes"]
    exhausted = settled and not cancelled and not errors
    bound = spec["bound"]
    if errors:
        line = f"search failed: {errors[0]}"
    elif failures:
        f = failures[0]
        line = f"counterexample with {f['preemptions']} preemption(s) after {n} schedule(s): {f['kind']}"
    elif exhausted:
        from fuzzfarm.engine.explore import assumption  # the reduction's assumption, in words
        line = f"proven up to {bound} preemptions for this scenario ({n} schedules){assumption(bool(spec.get('reduce', True)))}"
    else:
        line = f"no counterexample in {n} schedules so far (not exhausted)"
    return {"id": eid, "harness": spec["harness"], "variant": spec["variant"], "bound": bound,
            "reduction": bool(spec.get("reduce", True)), "subtrees": total, "subtrees_done": done,
            "subtrees_cancelled": cancelled, "schedules": n, "runs": int(spec.get("runs", 0)),
            "pruned": int(spec.get("pruned", 0)), "settled": settled, "exhausted": exhausted,
            "failures": failures, "errors": errors, "line": line, "created": spec.get("created"),
            "tolerated": p["tolerated"]}
