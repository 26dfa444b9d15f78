"""A bucket's fix verdict per context: the starvation bound and the harness version it was
decided under (docs/timing.md, "One bucket, several bounds").

Buckets are keyed by signature across campaigns, but a verdict holds only for the bound and the
harness code it was computed with. When a crash of another context joins a bucket, the bucket's
triage runs again for that context, once, on a *context record*: a bucket hash of its own
(``<bucket>-<bound>-<hash12>``, not listed among buckets) filled from that crash's intake and
run through the same tasks as a new bucket (minimize -> verify -> fix_check). The view of a
campaign shows the verdict of the campaign's context; until it is there, the bucket's verdict
labelled with the context it holds for, never bare.
"""

from __future__ import annotations

import time
from typing import Callable

from fuzzfarm import harness as H
from fuzzfarm.farm import store as S

# What a context record decides and the view takes from it (the rest is the bucket's).
VERDICT_FIELDS = ("reproducible", "verify_ok", "verify_n", "first_divergence", "flaky", "fixed", "fix_variant",
                  "fix_kind", "fix_keeps", "fix_proof", "fix_proof_line", "fix_verdict", "fix_summary", "fix_outcome",
                  "fix_schedules", "fix_evidence", "fix_check_s", "masked_bucket", "go_crash_state", "starvation_s", "starved",
                  "max_starvation_s", "harness_hash", "minimized_size", "preemptions_before", "preemptions_after",
                  "minimize_note", "done_at", "state", "error", "buggy_rate", "verify_hash_seeds",
                  "hash_seed_dependent")


def bound_text(bound) -> str:
    """A recorded bound as ``FUZZFARM_MAX_STARVATION_S`` text (``0.1``, ``none``); a bucket
    that recorded none: this process's setting."""
    if bound in (None, ""):
        return H.max_starvation_text(H.max_starvation_s())
    return H.max_starvation_text(H.parse_max_starvation(bound))


def context(bound, harness_hash: str) -> str:
    return f"{bound_text(bound)}|{(harness_hash or '')[:12]}"


def bucket_context(b: dict) -> str:
    return b.get("verdict_context") or context(b.get("max_starvation_s"), b.get("harness_hash") or "")


def record_id(bid: str, ctx: str) -> str:
    """The context record's id: a plain name (``fuzzfarm download`` takes it)."""
    bound, h = ctx.split("|", 1)
    return f"{bid}-{bound}-{h}"


def joined(st: S.Store, b: dict, cid: str, fields: dict, data: bytes,
           enqueue_triage: Callable[[str], None]) -> str | None:
    """Campaign ``cid``'s crash (``data``, intake ``fields``: its bound, harness hash, replays)
    joined the existing bucket ``b``. Returns the id of the context record triaging it when its
    context differs from the verdict's (started here at most once per context: SET NX)."""
    bid = b["id"]
    ctx = context(fields.get("max_starvation_s"), fields.get("harness_hash") or "")
    st.set_context(bid, cid, ctx)
    if ctx == bucket_context(b):
        return None
    rid = record_id(bid, ctx)
    if st.start_recheck(bid, ctx, cid, rid, time.time()):  # the campaign waits for it either way
        st.update_bucket(rid, **{**fields, "id": rid, "harness": b["harness"], "variant": b["variant"],
                                 "signature": b["signature"], "original_b64": S.b64(data), "count": 0,
                                 "recheck_of": bid, "verdict_context": ctx, "state": S.B_NEW,
                                 "created": time.time()})
        enqueue_triage(rid)
        st.update_bucket(rid, triage_queued=True)
        return rid
    rec = st.bucket(rid)  # someone else started it; if it died before enqueueing, do so here
    if rec and rec.get("state") == S.B_NEW and not rec.get("triage_queued"):
        enqueue_triage(rid)
        st.update_bucket(rid, triage_queued=True)
    return rid


def note(st: S.Store, bid: str, cid: str, ctx: str) -> None:
    """Campaign ``cid`` reported an input already in bucket ``bid`` (intaken under another
    campaign): its view labels the verdict with the context it was decided under."""
    st.set_context(bid, cid, ctx, keep=True)


def label(ctx: str, now_ctx: str) -> str:
    """What a verdict decided under ``ctx`` is shown with, seen from ``now_ctx``."""
    bound, h = ctx.split("|", 1)
    now_bound, now_h = now_ctx.split("|", 1)
    parts = []
    if bound != now_bound:
        parts.append("under bound " + ("none" if bound == "none" else H.bound_words(bound if bound == H.LABEL
                                                                                     else float(bound))))
    if h != now_h:
        parts.append(f"harness {h[:6] or '?'}")
    return ", ".join(parts)


def _labelled(b: dict, text: str, *, stale: bool = False) -> dict:
    """``b`` with its verdict words carrying ``text`` (the context they hold for). ``stale``:
    not decided for the context viewed, so ``fixed`` (what JSON readers and CI take) is unknown
    (None) while the words still say what was decided where."""
    out = dict(b)
    if stale:
        out["fixed"], out["fixed_as_decided"] = None, b.get("fixed")
    word = b.get("fix_summary") or b.get("fix_verdict") or (
        "" if b.get("fixed") in (None, "") else "fixed" if b.get("fixed") else "NO")
    if b.get("fix_keeps"):
        word = "kept (hazard)"  # fix_keeps itself stays: the bucket's group depends on it
    if not word:
        word = "fix check pending"
    out["fix_summary"] = f"{word} ({text})"
    if b.get("fix_verdict"):
        out["fix_verdict"] = f"{b['fix_verdict']} ({text})"
    if b.get("fix_proof_line"):
        out["fix_proof_line"] = f"{b['fix_proof_line']} ({text})"
    out["verdict_label"] = text
    return out


def _overlay(b: dict, rec: dict) -> dict:
    out = {**b, **{k: rec.get(k) for k in VERDICT_FIELDS}}
    out["verdict_context"], out["verdict_record"] = rec.get("verdict_context"), rec["id"]
    return out


def shown(st: S.Store, b: dict, cid: str | None = None) -> dict:
    """Bucket ``b`` as a view shows it: for campaign ``cid``, the verdict of the context its
    crashes joined under (the bucket's own, a finished context record's, or the bucket's
    labelled with its context while the record is not done); without a campaign, the latest
    finished verdict, labelled when the bucket holds verdicts of several contexts."""
    if b.get("recheck_of"):
        return b
    bid, own = b["id"], bucket_context(b)
    b = {**b, "verdict_context": own, "verdict_record": bid}
    ctxs = set(st.contexts(bid).values())
    if not ctxs - {own}:
        return b
    if cid is not None:
        ctx = st.context_of(bid, cid) or own
        if ctx == own:
            return b
        rec = st.bucket(record_id(bid, ctx))
        if rec and rec.get("state") == S.B_DONE:
            return _overlay(b, rec)
        return _labelled(b, label(own, ctx), stale=True)
    done = [r for r in (st.bucket(record_id(bid, c)) for c in sorted(ctxs - {own})) if r and r.get("state") == S.B_DONE]
    latest = max(done, key=lambda r: float(r.get("done_at") or 0), default=None)
    if latest is None or float(latest.get("done_at") or 0) < float(b.get("done_at") or 0):
        return _labelled(b, label(own, "|"))
    return _labelled(_overlay(b, latest), label(latest["verdict_context"], "|"))
