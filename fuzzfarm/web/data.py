"""What the web view reads besides the view model (:mod:`fuzzfarm.views`: campaigns, buckets,
groups and their words, as the CLI shows them): a campaign's time series, a bucket's artifact and
its structured trace, the workers, and the Bugs page's filters.

The pages never touch Redis or Celery themselves.
"""

from __future__ import annotations

import json
import time

from fuzzfarm.farm import store as S


# ---- campaigns ----------------------------------------------------------------------------
def series(st: S.Store, cid: str) -> dict:
    """The campaign's plots as lists of (seconds since submit, value): ``execs`` (summed over
    jobs, each job's last point carried forward), ``cov`` (max over jobs) and ``buckets`` (how
    many distinct buckets the campaign had hit by then)."""
    camp = st.campaign(cid)
    if camp is None:
        return {"execs": [], "cov": [], "buckets": []}
    t0 = float(camp["created"])
    last: dict[int, dict] = {}
    execs, cov = [], []
    for p in st.series(cid):
        last[int(p["job"])] = p
        t = round(float(p["t"]) - t0, 2)
        execs.append((t, sum(q["execs"] for q in last.values())))
        cov.append((t, max(q["cov"] for q in last.values())))
    # the jobs' hashes hold the latest figures (a job's last point may have been throttled)
    jobs = st.jobs(cid)
    upd = [float(j["updated"]) for j in jobs if j.get("updated") and j.get("state") != S.JOB_QUEUED]
    if upd and (not execs or max(upd) - t0 > execs[-1][0]):
        t = round(max(upd) - t0, 2)
        execs.append((t, sum(int(j.get("execs_base", 0) or 0) + int(j.get("execs", 0) or 0) for j in jobs)))
        cov.append((t, max(int(j.get("cov", 0) or 0) for j in jobs)))
    joined = st.campaign_bucket_times(cid)
    buckets = [(round(float(ts) - t0, 2), i + 1) for i, (_, ts) in enumerate(joined)]
    return {"execs": execs, "cov": cov, "buckets": buckets}


# ---- the Bugs page's filters ----------------------------------------------------------------
def filter_rows(rows: list[dict], *, harness: str = "", kind: str = "", verdict_: str = "") -> list[dict]:
    return [r for r in rows if (not harness or r["harness"] == harness) and (not kind or r["kind"] == kind)
            and (not verdict_ or r["fix_word"] == verdict_)]


def filter_choices(rows: list[dict]) -> dict:
    return {"harness": sorted({r["harness"] for r in rows}), "kind": sorted({r["kind"] or "" for r in rows}),
            "verdict": sorted({r["fix_word"] for r in rows})}


# ---- a bucket's artifact and its structured trace --------------------------------------------
_TRACE_CACHE: dict[tuple[str, str], dict] = {}
_TRACE_CACHE_MAX = 64


def trace(st: S.Store, bid: str, files: dict[str, bytes] | None) -> tuple[dict | None, str]:
    """(structured trace, where it came from). The artifact's ``trace.json`` when it has one;
    else the minimized input is replayed once here with tracing on, in a fresh process (the
    collector's replay; an artifact made before trace.json existed), and kept in memory per
    input. (None, why) when neither works."""
    if not files:
        return None, "no artifact yet"
    if "trace.json" in files:
        return json.loads(files["trace.json"]), "trace.json of the artifact"
    repro = json.loads(files.get("repro.json") or b"{}")
    data = files.get("input.min")
    if not data or not repro.get("harness"):
        return None, "the artifact has no input.min / repro.json"
    key = (repro["harness"] + "/" + repro.get("variant", ""), S.sha256(data))
    if key not in _TRACE_CACHE:
        from fuzzfarm import collector
        from fuzzfarm.harness import HarnessError
        try:
            out = collector.replay(repro["harness"], repro["variant"], data, trace=True)
        except (HarnessError, ValueError) as e:
            return None, f"cannot replay here: {e}"
        if not out.get("trace_json"):
            return None, f"the replay recorded no trace ({out.get('kind') or 'no failure'})"
        if len(_TRACE_CACHE) >= _TRACE_CACHE_MAX:  # bounded: drop the oldest
            _TRACE_CACHE.pop(next(iter(_TRACE_CACHE)))
        _TRACE_CACHE[key] = out["trace_json"]
    return _TRACE_CACHE[key], "replayed here with tracing on (the artifact has no trace.json)"


# ---- workers ----------------------------------------------------------------------------------
def workers(url: str, timeout_s: float = 1.5) -> dict:
    """The fleet as Celery sees it: ``{"nodes": [{name, queues, active: [{task, args, started}]}],
    "error": str}``. Only names, queues and running tasks: ``stats`` also carries the broker
    URL (celery #9563), so it is never read here."""
    from fuzzfarm.farm import configure, redis_url
    try:
        configure(url)
        from fuzzfarm.farm import app
        insp = app.control.inspect(timeout=timeout_s)
        queues = insp.active_queues() or {}
        active = insp.active() or {}
    except Exception as e:  # noqa: BLE001 - the page says what went wrong, masked
        return {"nodes": [], "error": redis_url.mask_text(f"{type(e).__name__}: {e}", url)}
    nodes = []
    for name in sorted(set(queues) | set(active)):
        tasks = []
        for t in active.get(name) or []:
            tasks.append({"task": str(t.get("name", "")), "args": redis_url.mask_text(json.dumps(t.get("args", [])), url),
                          "started": t.get("time_start"), "id": str(t.get("id", ""))})
        nodes.append({"name": name, "queues": sorted(q.get("name", "") for q in queues.get(name) or []),
                      "active": tasks})
    return {"nodes": nodes, "error": "", "asked_at": time.time()}
