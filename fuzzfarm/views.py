"""What a farm found, as every front end shows it: the one view model below ``fuzzfarm crashes``
/ ``status`` / ``download``, the web view and ``fuzzfarm ci``'s reports.

It owns a bucket's row (its public fields, and the words every view prints: the crash state in
Go's names with the Python function beside, the fix verdict, reproducibility, starvation), the
root-cause group of each bucket, a campaign's phase, and what a download writes (the artifact and
the regression test). Front ends only lay these out; :mod:`fuzzfarm.regroup` changes groups.
"""

from __future__ import annotations

import json
import os
import sys

from fuzzfarm import harness as H
from fuzzfarm.farm import store as S

# The bucket fields a view shows or ``--json`` prints (the rest of the record is triage's own).
PUBLIC_FIELDS = (
    "id", "harness", "variant", "kind", "exc_class", "crash_type", "crash_state", "go_crash_state",
    "crash_state_shape", "message",
    "signature", "state", "count", "joined_unreplayed", "original_size", "minimized_size", "preemptions_before",
    "preemptions_after", "reproducible", "verify_ok", "verify_n", "first_divergence", "flaky", "fixed", "fix_variant",
    "fix_kind", "fix_keeps", "fix_proof", "fix_proof_line", "fix_verdict", "fix_summary", "fix_outcome",
    "fix_schedules", "fix_evidence", "fix_check_s", "masked_bucket", "masked_by_fix_of", "first_campaign", "created",
    "done_at", "artifact_at", "first_artifact_at", "minimize_s", "minimize_note", "error", "object", "object_site",
    "racing_site", "go_racing_site", "starvation_s", "starved", "max_starvation_s", "verdict_context",
    "verdict_record", "verdict_label", "buggy_rate", "verify_hash_seeds", "hash_seed_dependent")


class ViewError(ValueError):
    """What was asked for is not there (or cannot be done); ``str`` says what to do."""


# ---- the words of a bucket ----------------------------------------------------------------------
def crash_frames(b: dict) -> list[str]:
    """The crash state's frames (the failing goroutine's top frames, innermost first; or a race's
    two access sites; or a lock cycle's goroutines: :func:`crash_state_shape`): the Go function
    and ``file.go:line`` where the port declares it, the Python function beside in brackets when
    it differs. ``go_crash_state`` holds the same frames as ``crash_state``, in the same order."""
    py = list(b.get("crash_state") or [])
    return [g if i >= len(py) or g == py[i] else f"{g} [{py[i]}]" for i, g in enumerate(b.get("go_crash_state") or py)]


def crash_state_shape(b: dict) -> str:
    """What a bucket's crash-state frames are: ``stack`` (a call chain), ``race`` (the two
    racing accesses) or ``lock cycle`` (one per goroutine of the cycle). A data race bucket
    recorded before the shape was is a race all the same."""
    shape = b.get("crash_state_shape") or ""
    if not shape and b.get("kind") == "data race":
        return "race"
    return shape or "stack"


def crash_state_text(b: dict) -> str:
    """The crash state on one line: a stack as ``f1 < f2 < f3`` (innermost first); the sides of
    a race or a lock cycle as ``race between A / B`` / ``lock cycle: A / B``, never as a chain
    (two racing accesses in one function are no recursion)."""
    return _frames_text(b, {"race": "race between ", "lock cycle": "lock cycle: "}, "", whole=True)


def crash_where(b: dict, whole: bool = False) -> str:
    """Where a bug is, after its kind (``data race between A / B``): ``in`` the innermost frame
    of a stack (``whole``: the chain), ``between`` a race's two sites, ``in the lock cycle`` of a
    deadlock's goroutines."""
    return _frames_text(b, {"race": "between ", "lock cycle": "in the lock cycle "}, "in ", whole=whole)


def _frames_text(b: dict, sides: dict[str, str], stack_head: str, *, whole: bool) -> str:
    """``b``'s crash-state frames after the words for their shape: the sides of a race or a lock
    cycle joined with `` / `` after ``sides[shape]``; a stack after ``stack_head``, as the chain
    (``whole``) or its innermost frame."""
    frames = crash_frames(b)
    if not frames:
        return stack_head + "(no project frames)"
    shape = crash_state_shape(b)
    if shape in sides:
        return sides[shape] + " / ".join(frames)
    return stack_head + (" < ".join(frames) if whole else frames[0])


def fix_label(b: dict) -> str:
    """The fix verdict in words: the three-state verdict with how many schedules of the fixed
    variant were tried, ``kept (hazard)``, or ``-`` before the fix check."""
    if b.get("fix_keeps"):
        return "kept (hazard)" + (f" ({b['verdict_label']})" if b.get("verdict_label") else "")
    if b.get("fix_summary"):
        tried = b.get("fix_schedules")
        return f"{b['fix_summary']}" + (f" ({tried} schedules)" if tried else "")
    v = b.get("fixed")
    return "-" if v in (None, "") else ("fixed" if v else "NO")


def fix_word(b: dict) -> str:
    """The verdict's one word (the web view's filter and colour): a stored ``fix_verdict``
    (fixed / NO / fails differently, labelled with its context); else derived from the fix
    check's fields: kept by the fix (a hazard) -> kept; ``fixed`` -> fixed; a failure on the fixed
    variant -> NO, or fails differently when of another kind; no check (yet) -> none."""
    if b.get("fix_verdict"):
        return str(b["fix_verdict"])
    if b.get("fix_keeps"):
        return "kept"
    if b.get("fixed") is True:
        return "fixed"
    if b.get("fixed") is False:
        ev = str(b.get("fix_summary") or b.get("fix_evidence") or b.get("fix_kind") or "")
        same = not ev or ev.split(" (")[0] == (b.get("kind") or "") or ev == (b.get("crash_type") or "")
        return "NO" if same else "fails differently"
    return "none"


def starved_of(b: dict) -> list:
    """A bucket's ``starved`` as ``[[gid, name], ...]`` (one pair, as older rows kept it, too)."""
    st = b.get("starved")
    if isinstance(st, str):
        try:
            st = json.loads(st) if st else None
        except ValueError:
            st = None
    if not st or not isinstance(st, list):
        return []
    return [st] if not isinstance(st[0], list) else st


def starvation_cell(b: dict) -> str:
    """What a bucket needs, short: ``1 s G2 (processor.run) - over 0.1 s`` (docs/timing.md)."""
    s = b.get("starvation_s")
    if s in (None, ""):
        return "-"
    if float(s) <= 0:
        return "0 s (realistic)"
    who = " ".join(f"G{g[0]} ({g[1]})" for g in starved_of(b))
    side = "over" if float(s) > H.DEFAULT_MAX_STARVATION_S else "within"
    return f"{float(s):g} s{' ' + who if who else ''} - {side} {H.DEFAULT_MAX_STARVATION_S:g} s"


def starvation_need(b: dict) -> str:
    """The full sentence (``fuzzfarm.harness.starvation_need``) for a bucket."""
    return H.starvation_need(b.get("starvation_s"), starved_of(b) or None)


def max_starvation_label(bound) -> str:
    """A campaign's starvation bound as shown: ``0.5 s``, ``none`` (no bound in time), or, when
    the campaign set none, the workers' setting (docs/timing.md)."""
    if bound in (None, ""):
        return f"workers' setting (default {H.LABEL})"
    return H.bound_words(H.parse_max_starvation(bound))


# ---- campaigns ----------------------------------------------------------------------------------
def phase(summary: dict) -> str:
    """queued / running / triaging (fuzzing over, crashes still in the collector) / done / failed."""
    return "triaging" if summary["status"] in ("done", "failed") and not summary["settled"] else summary["status"]


def campaign(st: S.Store, cid: str) -> dict | None:
    """``Store.campaign_summary`` plus ``phase``, ``started`` and ``finished`` (wall times of the
    first job start and of the last job end, once every job ended)."""
    s = st.campaign_summary(cid)
    if s is None:
        return None
    jobs = st.jobs(cid)
    starts = [float(j["started"]) for j in jobs if j.get("started")]
    ends = [float(j["finished"]) for j in jobs if j.get("finished")]
    s["started"] = min(starts) if starts else None
    s["finished"] = max(ends) if ends and len(ends) == len(jobs) else None
    s["phase"] = phase(s)
    return s


def jobs(st: S.Store, cid: str) -> list[dict]:
    """Campaign ``cid``'s jobs with ``fuzz_exec_per_s`` and ``crash_inputs`` (the distinct inputs
    each reported first: they sum to the campaign's crashes)."""
    by_job = st.crashes_by_job(cid)
    return [{**j, "crash_inputs": by_job.get(int(j.get("job", -1)), 0), "fuzz_exec_per_s": S.fuzz_rate(j)}
            for j in st.jobs(cid)]


def campaigns(st: S.Store) -> list[dict]:
    """Every campaign's :func:`campaign`, oldest first."""
    return [s for s in (campaign(st, cid) for cid in st.campaign_ids()) if s]


# ---- buckets and their groups -------------------------------------------------------------------
def bucket_rows(st: S.Store, campaign: str | None = None) -> list[dict]:
    """The rows of every bucket, or of campaign ``campaign``'s (verdicts as that campaign sees
    them, farm/recheck.py), in the store's order. Groups are computed over every bucket of the
    farm, whatever is asked, so a group id means the same buckets in every view."""
    from fuzzfarm.collector.grouping import group_buckets
    from fuzzfarm.farm.recheck import shown
    if campaign is not None and st.campaign(campaign) is None:
        raise ViewError(f"unknown campaign {campaign!r}; list campaigns with `fuzzfarm status`")
    every = {bid: b for bid in st.bucket_ids() if (b := st.bucket(bid))}
    # a group is the buckets' own (their triage), never the context a verdict is viewed under
    group = {b["id"]: g for g in group_buckets(list(every.values()), st.group_overrides(), st.group_names())
             for b in g["buckets"]}
    ids = st.campaign_bucket_ids(campaign) if campaign else every
    rows = [_row(st, shown(st, every[bid], campaign), group[bid]) for bid in ids if bid in every]
    if campaign:  # a campaign's view counts its own inputs (count_all: every campaign's)
        mine = st.campaign_bucket_counts(campaign)
        for r in rows:
            r["count_all"], r["count"] = r["count"], mine.get(r["id"], 0)
    return rows


def _row(st: S.Store, b: dict, group: dict | None) -> dict:
    from fuzzfarm.collector.artifact import reproducibility
    row = {k: b.get(k) for k in PUBLIC_FIELDS}
    row.update(group=group["id"] if group else b["id"], group_name=group["name"] if group else "",
               crash_state_text=crash_state_text(b), fix_label=fix_label(b), fix_word=fix_word(b),
               repro_label=reproducibility(b), starvation=starvation_cell(b), starvation_need=starvation_need(b),
               realistic=H.is_realistic(b.get("starvation_s")), first_seen=b.get("created"),
               last_seen=_last_seen(b))
    return row


def _last_seen(b: dict):
    """When a new input last landed in the bucket (any campaign); buckets counted before
    ``last_seen`` was recorded: when it was created."""
    return max([float(x) for x in (b.get("created"), b.get("last_seen")) if x not in (None, "")], default=None)


def bucket(st: S.Store, bid: str) -> dict | None:
    """Bucket ``bid``'s row; a context record (farm/recheck.py: not among the buckets, in no
    group) is a row of its own."""
    row = next((r for r in bucket_rows(st) if r["id"] == bid), None)
    b = st.bucket(bid) if row is None else None
    return row if b is None else _row(st, b, None)


def groups(rows: list[dict]) -> list[dict]:
    """Bucket rows gathered into their groups, in order of first appearance: ``id``, ``name``,
    ``buckets``, ``count`` (inputs), ``harness``, ``kinds``, ``fix_words``, first and last seen."""
    by: dict[str, dict] = {}
    for r in rows:
        by.setdefault(r["group"], {"id": r["group"], "name": r["group_name"], "buckets": []})["buckets"].append(r)
    for g in by.values():
        rs = g["buckets"]
        g.update(count=sum(int(r.get("count") or 0) for r in rs), harness=sorted({r["harness"] for r in rs}),
                 kinds=sorted({r["kind"] or "" for r in rs}), fix_words=sorted({r["fix_word"] for r in rs}),
                 first_seen=min((r["first_seen"] for r in rs if r["first_seen"]), default=None),
                 last_seen=max((r["last_seen"] for r in rs if r["last_seen"]), default=None))
    return list(by.values())


def find_group(groups_: list[dict], ref: str) -> dict:
    """The group of id ``ref``, or the group bucket ``ref`` is in."""
    for g in groups_:
        if g["id"] == ref or any(b["id"] == ref for b in g["buckets"]):
            return g
    raise ViewError(f"no group or bucket {ref!r}; list them with `fuzzfarm crashes`")


# ---- download -----------------------------------------------------------------------------------
def artifact_files(st: S.Store, bid: str) -> dict[str, bytes] | None:
    """Bucket ``bid``'s artifact as this machine downloads it (the CLI writes these bytes, the web
    view serves them): repro.json's ``replay_standalone`` names this interpreter (``sys.executable``),
    so it runs as written outside fuzzfarm's venv too; None without an artifact."""
    from fuzzfarm import collector
    files = st.artifact(bid)
    return collector.with_python(files, sys.executable) if files else files


def download_bucket(st: S.Store, bid: str, out_dir: str, *, overwrite: bool = True) -> list[str]:
    """Write bucket ``bid``'s artifact and its regression test into ``out_dir``; the names written.
    Without ``overwrite``, a file of the same name there is refused before anything is written.
    repro.json's ``replay_standalone`` names this interpreter (``sys.executable``), so it runs as
    written outside fuzzfarm's venv too."""
    from fuzzfarm import collector
    from fuzzfarm.collector.artifact import safe_name
    b = st.bucket(bid)
    if b is None:
        raise ViewError(f"unknown bucket {bid!r}; list buckets with `fuzzfarm crashes`")
    files = artifact_files(st, bid)
    if not files:
        raise ViewError(f"bucket {bid} has no artifact yet (triage: {b.get('state')}); retry in a few seconds")
    test = regression_test(b)
    names = [safe_name(n) for n in (*files, *test)]  # a hostile stored name is refused, never probed
    taken = [n for n in names if os.path.lexists(os.path.join(out_dir, n))] if not overwrite else []
    if taken:  # said before anything is written: the directory stays as it was
        raise ViewError(f"{out_dir} already holds {taken[0]}" + (f" and {len(taken) - 1} more file(s)" if len(taken) > 1
                        else "") + "; choose another -o DIR, or pass --force to overwrite them")
    try:  # what the checks before could not know (a read-only or virtual file system, a full disk)
        os.makedirs(out_dir, exist_ok=True)
        return collector.write_artifact(files, out_dir) + collector.write_artifact(test, out_dir)
    except OSError as e:
        raise ViewError(f"cannot write into {out_dir}: {e.strerror or e}; choose another -o DIR") from None


def regression_test(b: dict) -> dict[str, bytes]:
    """``test_<bucket>.py``: replays the reproducer on fixed (must pass) and buggy (must fail)."""
    from fuzzfarm import regression_test as R
    from fuzzfarm.farm import triage
    fv, kept = b.get("fix_variant") or None, bool(b.get("fix_keeps"))
    try:  # what the harness installed here declares (a bucket still in triage has no fix check yet)
        fv = fv or triage.fix_variant(b["harness"], b["variant"])
        kept = kept or triage.kept_by_fix(b["harness"], b.get("kind") or "", b.get("crash_state") or [])
    except H.HarnessError:
        pass  # not installed here: the test file says so when it runs (replay needs the harness)
    return {R.file_name(b["id"]): R.render(b, fixed_variant=fv, kept_by_fix=kept)}
