"""Everything the web view reads, in one module: campaigns, their time series, bug groups and
buckets with fix verdicts, a bucket's artifact and its structured trace, and the workers.

The pages never touch Redis or Celery themselves; the lead adapts this module when the store
grows (root-cause groups, three-state fix verdicts: see :func:`group_of` and :func:`verdict`).
"""

from __future__ import annotations

import json
import time

from fuzzfarm import store as S

# What the bugs table shows of a bucket (the same public fields as `fuzzfarm crashes --json`).
BUCKET_FIELDS = ("id", "harness", "variant", "kind", "exc_class", "crash_type", "crash_state", "message", "state",
                 "count", "joined_unreplayed", "original_size", "minimized_size", "preemptions_before", "preemptions_after",
                 "reproducible", "verify_ok", "verify_n", "fixed", "fix_variant", "fix_kind", "fix_keeps",
                 "fix_verdict", "fix_summary", "fix_evidence", "flaky", "group", "first_campaign", "created", "done_at", "error",
                 "first_divergence", "signature", "minimize_note", "verdict_context", "verdict_record", "verdict_label",
                 "fix_proof_line", "hash_seed_dependent", "object_site", "starvation_s", "starved")


# ---- campaigns ----------------------------------------------------------------------------
def campaigns(st: S.Store) -> list[dict]:
    """One summary per campaign (:func:`campaign`), newest first."""
    return [s for s in (campaign(st, cid) for cid in reversed(st.campaign_ids())) if s]


def campaign(st: S.Store, cid: str) -> dict | None:
    """``Store.campaign_summary`` plus ``started`` / ``finished`` (wall times of the first job
    start and of the last job end, once every job ended) and ``phase`` (triaging: fuzzing is
    over, the collector is still at work)."""
    s = st.campaign_summary(cid)
    if s is None:
        return None
    jobs = st.jobs(cid)
    starts = [float(j["started"]) for j in jobs if j.get("started")]
    ends = [float(j["finished"]) for j in jobs if j.get("finished")]
    s["started"] = min(starts) if starts else None
    s["finished"] = max(ends) if ends and len(ends) == len(jobs) else None
    s["phase"] = "triaging" if s["status"] in ("done", "failed") and not s["settled"] else s["status"]
    return s


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
    joined = st.r.zrange(S.P + f"campaign:{cid}:buckets", 0, -1, withscores=True)
    buckets = [(round(float(ts) - t0, 2), i + 1) for i, (_, ts) in enumerate(joined)]
    return {"execs": execs, "cov": cov, "buckets": buckets}


# ---- groups and buckets ---------------------------------------------------------------------
def group_of(b: dict) -> str:
    """The root-cause group of a bucket: its ``group`` field when the collector records one,
    else the bucket is a group of its own (see :func:`_annotate_groups` for computed groups)."""
    return str(b.get("group") or b["id"])


def _annotate_groups(st: S.Store, rows: list[dict]) -> None:
    """Set ``group`` / ``group_name`` of ``rows`` from the collector's root-cause grouping and
    the user's overrides, where this build has them (``fuzzfarm.collector.grouping``)."""
    try:
        from fuzzfarm.collector.grouping import group_buckets
    except ImportError:
        return
    if not hasattr(st, "group_overrides"):
        return
    for g in group_buckets(rows, st.group_overrides(), st.group_names()):
        for b in g["buckets"]:
            b["group"], b["group_name"] = g["id"], g.get("name", "")


def verdict(b: dict) -> tuple[str, str]:
    """(fix verdict, evidence). A stored three-state ``fix_verdict`` (fixed / NO / fails
    differently) wins; otherwise it is derived from the fix check's fields: ``fixed`` True ->
    fixed; kept by the fix (an upstream hazard) -> kept; a failure of the same kind on the fixed
    variant -> NO; of another kind -> fails differently; no check -> none."""
    fv = b.get("fix_variant") or ""
    ev = b.get("fix_summary") or b.get("fix_evidence") or b.get("fix_kind") or ""
    if b.get("fix_verdict"):
        return str(b["fix_verdict"]), str(ev)
    if b.get("fix_keeps"):
        return "kept", str(ev)
    if b.get("fixed") is True:
        return "fixed", f"the reproducers pass on {fv or 'the fixed variant'}"
    if b.get("fixed") is False:
        kind = (b.get("kind") or "")
        same = not ev or ev.split(" (")[0] == kind or ev == (b.get("crash_type") or "")
        return ("NO" if same else "fails differently"), (f"on {fv}: {ev}" if ev else f"fails on {fv}")
    return "none", "no fixed variant checked" if b.get("state") == S.B_DONE else "fix check pending"


def bucket(st: S.Store, bid: str) -> dict | None:
    """One bucket's row; its group needs the others when groups are computed."""
    rows = bucket_rows(st, [bid])
    if rows and hasattr(st, "group_overrides"):
        return next((r for r in buckets(st) if r["id"] == bid), rows[0])
    return rows[0] if rows else None


def _starvation(row: dict) -> tuple[str, str, bool]:
    """The table cell, the sentence and the realism of what a bucket needs (docs/timing.md)."""
    from fuzzfarm.cli.tables import starvation_cell, starvation_need
    from fuzzfarm.harness import is_realistic
    return starvation_cell(row), starvation_need(row), is_realistic(row.get("starvation_s"))


def bucket_rows(st: S.Store, bids: list[str], cid: str | None = None) -> list[dict]:
    """The table rows of ``bids`` (unknown ids left out), read in two pipelined round trips:
    the bucket records, then when the campaign that last hit each one did so. Verdicts as
    campaign ``cid`` sees them (farm/recheck.py), else the latest."""
    from fuzzfarm.farm.recheck import shown
    pipe = st.r.pipeline()
    for bid in bids:
        pipe.hgetall(S.P + f"bucket:{bid}")
    recs = [{k: S._dec(k, v) for k, v in raw.items()} for raw in pipe.execute()] if bids else []
    recs = [b for b in recs if b]
    pipe = st.r.pipeline()
    for b in recs:
        pipe.zscore(S.P + f"campaign:{b.get('last_campaign') or b.get('first_campaign')}:buckets", b["id"])
    joined = pipe.execute() if recs else []
    rows = []
    for b, ts in zip(recs, joined):
        b = shown(st, b, cid)
        row = {k: b.get(k) for k in BUCKET_FIELDS}
        row["verdict"], row["evidence"] = verdict(b)
        from fuzzfarm.collector.artifact import reproducibility
        row["repro_label"] = reproducibility(b)  # as the CLI and ci say it (flaky, hash-seed dependent)
        row["starvation"], row["starvation_need"], row["realistic"] = _starvation(row)
        row["group"] = group_of(b)
        row["first_seen"] = b.get("created")
        # the latest time a campaign first hit it (joins of known inputs are not timed)
        row["last_seen"] = max([float(x) for x in (b.get("created"), ts) if x not in (None, "")], default=None)
        rows.append(row)
    return rows


def buckets(st: S.Store, *, harness: str = "", kind: str = "", verdict_: str = "") -> list[dict]:
    """Every bucket's row, newest first, in its group, filtered."""
    rows = bucket_rows(st, list(reversed(st.bucket_ids())))
    _annotate_groups(st, rows)
    return filter_rows(rows, harness=harness, kind=kind, verdict_=verdict_)


def filter_rows(rows: list[dict], *, harness: str = "", kind: str = "", verdict_: str = "") -> list[dict]:
    return [r for r in rows if (not harness or r["harness"] == harness) and (not kind or r["kind"] == kind)
            and (not verdict_ or r["verdict"] == verdict_)]


def groups(rows: list[dict]) -> list[dict]:
    """Bucket rows (:func:`buckets`) gathered into their groups, largest count first: ``id``,
    ``buckets``, ``count``, ``harness``, ``kinds``, ``verdicts``, first and last seen."""
    by: dict[str, list[dict]] = {}
    for r in rows:
        by.setdefault(r["group"], []).append(r)
    out = []
    for gid, rs in by.items():
        out.append({"id": gid, "buckets": rs, "count": sum(int(r.get("count") or 0) for r in rs),
                    "harness": sorted({r["harness"] for r in rs}), "kinds": sorted({r["kind"] or "" for r in rs}),
                    "verdicts": sorted({r["verdict"] for r in rs}),
                    "first_seen": min((r["first_seen"] for r in rs if r["first_seen"]), default=None),
                    "last_seen": max((r["last_seen"] for r in rs if r["last_seen"]), default=None)})
    out.sort(key=lambda g: (-g["count"], g["id"]))
    return out


def filter_choices(rows: list[dict]) -> dict:
    return {"harness": sorted({r["harness"] for r in rows}), "kind": sorted({r["kind"] or "" for r in rows}),
            "verdict": sorted({r["verdict"] for r in rows})}


# ---- a bucket's artifact and its structured trace --------------------------------------------
def artifact(st: S.Store, bid: str) -> dict[str, bytes] | None:
    """The artifact files, each checked against its stored sha256 (the bytes `fuzzfarm download`
    writes)."""
    return st.artifact(bid)


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
