"""End to end: submit -> first downloadable, verified reproducer, per seed bug.

    python -m benchmarks.end_to_end [--quick] [--json] [--harness NAME]

A private farm per seed bug (``fuzzfarm.farm.embedded``: redis-server, a fuzz worker with one
pool process per job, a collector with one), then the user's commands: ``fuzzfarm submit H
--variant buggy --jobs J --duration D --strategy S``, polling Redis every 0.1 s for the
milestones, and at the end ``fuzzfarm download BUCKET -o DIR`` + ``fuzzfarm replay DIR`` (a
fresh process that must fail with the seed bug). Milestones, seconds from the submit command:

* first crash reported by a fuzz job; the seed bug's bucket created (intake replayed it);
* first downloadable reproducer (the unminimized artifact stored at intake);
* reproducible: minimized and replayed N times in fresh processes, N/N failing (``verify_n``);
* verified + fix-checked: reproducible and the fix verdict stored (``fix_verdict``);
* verified (triage done): the proof (``fix_proof``) and the final artifact stored too;
* downloaded and replayed by the CLI.

Each milestone is also given from the farm's start (redis-server + workers ready) to include
the start-up a user of ``fuzzfarm up`` waits for once. The seconds from the submit include the
fuzz processes' own start-up.

Campaign-level milestones, per seed and per default campaign length (``--lengths``, 20 s and 60 s in
the full profile; the farm's default strategy): submit -> first verified bucket (any bucket
reproducible N/N), submit -> all buckets fix-checked (what ``submit --wait`` returns on: the
fuzzing over and every bucket's fix verdict stored), submit -> settled (every proof stored too,
``--wait-proofs``), each also as a ratio to the campaign's duration, and the collector's CPU
seconds per bucket (its Celery processes, every replay, minimization, verification, fix check and
proof they start). Two collectors side by side in one run, on the same machine and load:

* ``now``: this checkout, the collect worker with one process per core given (``fuzzfarm
  worker``'s default);
* ``last round``: the previous release's code (``$FUZZFARM_BENCH_BASELINE_SRC``: a checkout of it,
  put first on the workers' PYTHONPATH) with the collector it was measured with (one process).
  Without the variable, this checkout with one collect process and every crash replayed at intake
  (``FUZZFARM_INTAKE_UNREPLAYED=0``), said so in the row.

After each ``now`` campaign settles, every crash that joined a bucket on the fuzz engine's word
(not replayed at intake) is replayed once in a fresh process: the audit says how many gave their
bucket's signature (all of them: replaying them at intake would have changed no bucket, count
aside, and so no verdict, reproducibility figure or group, which rest on the replayed inputs).

Beside each ``now`` campaign: ``fuzzfarm ci HARNESS --duration D --jobs J`` (ci's own defaults
otherwise: strategy, budgets, waiting until settled) against a fresh private farm with the ``now``
collector, its wall time from start to exit as a ratio to the duration (issue 33: ``fuzzfarm ci
--duration 60`` within 90 s, x1.5).

Strategies, per seed bug: the farm's default (``submit`` without ``--strategy``) and a pinned one:
the single strategy that found the seed bug fastest in ``time_to_bug`` of the same suite run
(standalone, or when none found it: ``$FUZZFARM_BENCH_E2E_PIN``, default ``random``). Both
profiles use the farm's default triage budgets (10 verify replays, the full fix check and proof);
``--quick`` runs one job of a short campaign, the full profile two jobs on the 2 cores.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time

from benchmarks import common as C
from benchmarks import farmkit as K

MILESTONES = (("first_crash", "first crash reported"), ("bucket", "seed-bug bucket created"),
              ("downloadable", "first downloadable reproducer"), ("reproducible", "reproducible N/N"),
              ("fix_checked", "verified + fix-checked (fix verdict stored)"),
              ("verified", "triage done (proof, final artifact)"), ("replayed", "downloaded + replayed by the CLI"))
DEFAULT = "(farm default)"


def fastest_strategy(ttb: dict | None, harness: str) -> str | None:
    best = None
    for r in (ttb or {}).get("buggy", []):
        if r["harness"] != harness or r["found"] == 0:
            continue
        key = (r["seconds_median_censored"], -r["found"] / max(1, r["of"]), r["seconds_median"])
        if best is None or key < best[0]:
            best = (key, r["strategy"])
    return best[1] if best else None


CAMPAIGN_MILESTONES = (("first_verified", "first verified bucket"), ("all_fix_checked", "all buckets fix-checked"),
                       ("settled", "settled (proofs stored)"))
BASELINE_ENV = "FUZZFARM_BENCH_BASELINE_SRC"


def collectors() -> list[tuple[str, int, dict, str]]:
    """(name, collect processes, worker env, how) of the two collectors compared in one run."""
    cores = len(os.sched_getaffinity(0))
    now = ("now", cores, {}, f"this checkout, collect -c {cores} (the cores given)")
    base = os.environ.get(BASELINE_ENV)
    if base:
        last = ("last round", 1, {"PYTHONPATH": os.path.abspath(base)},
                f"the previous code (${BASELINE_ENV}), collect -c 1")
    else:
        last = ("last round", 1, {"FUZZFARM_INTAKE_UNREPLAYED": "0"},
                "this checkout, collect -c 1, every crash replayed at intake (no baseline checkout given)")
    return [last, now]


def audit_unreplayed(st, cid: str, limit: int = 40) -> dict:
    """Each crash of ``cid`` that joined its bucket on the engine's word, replayed once in a fresh
    process: how many give their bucket's signature (at most ``limit`` replayed)."""
    from fuzzfarm.collector import replay
    camp = st.campaign(cid) or {}
    h, v = camp.get("harness"), camp.get("variant")
    joined = [c for c in (st.crash(h, v, sha) for sha in st.campaign_crash_shas(cid))
              if c and c.get("joined") == "engine signature"]
    same, other = 0, []
    for c in joined[:limit]:
        out = replay(h, v, c["data"])
        b = st.bucket(c["bucket"]) or {}
        if out.get("signature") and out.get("signature") == b.get("signature"):
            same += 1
        else:
            other.append({"sha256": S_sha(c["data"]), "bucket": c["bucket"], "replay_kind": out.get("kind")})
    return {"joined_unreplayed": len(joined), "replayed": min(len(joined), limit), "same_signature": same,
            "other": other}


def S_sha(data: bytes) -> str:
    from fuzzfarm.farm import store as S
    return S.sha256(data)


def one(spec: C.HarnessSpec, prof: C.Profile, strategy: str, log, *, duration_s: float | None = None,
        collector: tuple[str, int, dict, str] | None = None) -> dict:
    from fuzzfarm.farm import store as S
    bug = spec.seed_bug
    duration_s = prof.e2e_duration_s if duration_s is None else duration_s
    cname, collect_c, cenv, chow = collector or ("now", 1, {}, "collect -c 1")
    env = dict(cenv)
    if prof.e2e_minimize_budget_s is not None:
        env["FUZZFARM_MINIMIZE_BUDGET_S"] = f"{prof.e2e_minimize_budget_s:g}"
    if prof.e2e_verify_runs is not None:
        env["FUZZFARM_VERIFY_RUNS"] = str(prof.e2e_verify_runs)
    rec = {"harness": spec.name, "variant": bug.variant, "strategy": strategy, "jobs": prof.e2e_jobs,
           "duration_s": duration_s, "worker_env": env, "marks": {}, "error": None,
           "collector": cname, "collector_how": chow, "collect_c": collect_c, "load_before": os.getloadavg()[0]}
    with K.FarmRun(fuzz_concurrency=prof.e2e_jobs, collect_concurrency=collect_c, worker_env=env,
                   harness_paths=[spec.path]) as fr:
        rec["farm_start_s"] = round(fr.started_s, 2)
        st = fr.store()
        r = fr.client
        sampler = fr.sampler.start()
        before = K.commandstats(r)
        r.counts.clear()
        t0 = time.monotonic()
        cid, submit_s = fr.submit(spec.name, bug.variant, prof.e2e_jobs, duration_s, strategy)
        marks = rec["marks"]
        marks["submitted"] = round(time.monotonic() - t0, 2)
        rec["campaign"] = cid
        rec["strategy_used"] = (st.campaign(cid) or {}).get("strategy")
        seen: set[str] = set()
        bid = None
        deadline = t0 + prof.e2e_timeout_s + duration_s
        while time.monotonic() < deadline:
            now = round(time.monotonic() - t0, 2)
            summ = st.campaign_summary(cid) or {}
            if "first_crash" not in marks and summ.get("crashes"):
                marks["first_crash"] = now
            if "first_verified" not in marks and any(
                    (st.bucket(b) or {}).get("reproducible") for b in st.campaign_bucket_ids(cid)):
                marks["first_verified"] = now
            if "all_fix_checked" not in marks and summ.get("fix_checked"):
                marks["all_fix_checked"] = now
            if summ.get("settled"):
                marks["settled"] = now
                if bid is None:
                    rec["error"] = "the campaign settled without the seed bug"
                break
            if bid is None:
                for b in st.campaign_bucket_ids(cid):
                    if b in seen:
                        continue
                    seen.add(b)
                    brec = st.bucket(b) or {}
                    if bug.matches(brec.get("kind"), brec.get("crash_state")):
                        bid = b
                        marks["bucket"] = now
                        break
            if bid is not None:
                brec = st.bucket(bid) or {}
                state_key = f"state:{brec.get('state')}"
                if state_key not in marks:
                    marks[state_key] = now
                if "reproducible" not in marks and brec.get("verify_n") and brec.get("reproducible"):
                    marks["reproducible"] = now
                if "fix_checked" not in marks and brec.get("fix_verdict") and brec.get("reproducible"):
                    marks["fix_checked"] = now
                if "downloadable" not in marks and (brec.get("first_artifact_at") or brec.get("artifact_at")
                                                    or r.exists(S.P + f"artifact:{bid}")):
                    marks["downloadable"] = now
                if brec.get("state") == S.B_DONE and "verified" not in marks:
                    marks["verified"] = now
                    if not brec.get("reproducible"):
                        rec["error"] = (f"triage done but not reproducible ({brec.get('verify_ok')}/"
                                        f"{brec.get('verify_n')} replays)")
                if brec.get("state") == S.B_FAILED:
                    rec["error"] = f"triage failed: {brec.get('error')}"
            time.sleep(0.1)
        else:
            rec["error"] = f"not settled within {prof.e2e_timeout_s + duration_s:g} s"
        wall = time.monotonic() - t0
        summ = st.campaign_summary(cid) or {}
        rec["crashes_reported"] = summ.get("crashes")
        rec["crashes_intaken"] = summ.get("intaken")
        rec["buckets"] = summ.get("buckets")
        # of the intaken: joined by the fuzz engine's signature without a collector replay
        rec["crashes_joined_unreplayed"] = sum(int((st.bucket(b) or {}).get("joined_unreplayed") or 0)
                                               for b in st.campaign_bucket_ids(cid))
        own = r.counts.copy()
        after = K.commandstats(r)
        totals = sampler.stop()
        rec["redis"] = {"commands": K.stats_delta(before, after, own), "wall_s": round(wall, 2),
                        "cpu_s": totals.get(K.CAT_REDIS, 0.0), "workers": prof.e2e_jobs}
        rec["cpu"] = K.cpu_summary(totals)
        rec["load_after"] = os.getloadavg()[0]
        nb = int(summ.get("buckets") or 0)
        rec["collector_cpu_s"] = round(totals.get(K.CAT_COLLECT, 0.0), 2)
        rec["collector_cpu_s_per_bucket"] = round(rec["collector_cpu_s"] / nb, 2) if nb else None
        rec["verdicts"] = sorted(
            [b.get("signature"), b.get("fix_verdict"), f"{b.get('verify_ok')}/{b.get('verify_n')}", b.get("count")]
            for b in (st.bucket(x) or {} for x in st.campaign_bucket_ids(cid)))
        # each bucket's own step times: which step of which bucket the settle waited for
        rec["bucket_steps"] = sorted(({
            "id": b.get("id"), "kind": b.get("kind"), "crash_state": list(b.get("crash_state") or [])[:2],
            "fix_verdict": b.get("fix_verdict"), "minimize_s": b.get("minimize_s"), "minimize_runs": b.get("minimize_runs"),
            "minimize_note": b.get("minimize_note"), "size": [b.get("original_size"), b.get("minimized_size")],
            "preemptions": [b.get("preemptions_before"), b.get("preemptions_after")], "fix_check_s": b.get("fix_check_s"),
            "proof_s": (b.get("fix_proof") or {}).get("elapsed_s"), "proof_of": b.get("fix_proof_of") or "",
            "proof": (b.get("fix_proof_line") or "")[:120]}
            for b in (st.bucket(x) or {} for x in st.campaign_bucket_ids(cid))), key=lambda d: -(d["minimize_s"] or 0))
        if cname == "now" and "settled" in marks:
            rec["audit"] = audit_unreplayed(st, cid)
        if bid is not None:
            b = st.bucket(bid) or {}
            rec["bucket"] = {k: b.get(k) for k in ("id", "kind", "crash_state", "state", "count", "original_size",
                                                   "minimized_size", "preemptions_before", "preemptions_after",
                                                   "minimize_s", "minimize_runs", "reproducible", "verify_ok",
                                                   "verify_n", "fixed", "fix_variant")}
        if "verified" in marks:
            out_dir = tempfile.mkdtemp(prefix="fuzzfarm-bench-e2e-")
            try:
                rc, out, err = fr.cli("download", bid, "-o", os.path.join(out_dir, "repro"), "--json")
                if rc != 0:
                    rec["error"] = f"fuzzfarm download failed: {err.strip()}"
                else:
                    rc, out, err = fr.cli("replay", os.path.join(out_dir, "repro"), "--json", "-q")
                    res = json.loads(out) if out.strip().startswith("{") else {}
                    outcome = res.get("outcome") or {}
                    rec["replay"] = {"rc": rc, "verdict": res.get("verdict"), "kind": outcome.get("kind"),
                                     "crash_state": outcome.get("crash_state")}
                    if res.get("verdict") == "fails as recorded" and bug.matches_outcome(outcome):
                        marks["replayed"] = round(time.monotonic() - t0, 2)
                    else:
                        rec["error"] = (f"the downloaded reproducer replayed as {res.get('verdict')!r} "
                                        f"({outcome.get('kind')})")
            finally:
                shutil.rmtree(out_dir, ignore_errors=True)
    rec["submit_cli_s"] = round(submit_s, 2)
    rec["from_farm_start"] = {k: round(v + rec["farm_start_s"], 2) for k, v in marks.items()}
    return rec


def lengths(prof: C.Profile) -> tuple[float, ...]:
    """The campaign lengths measured: ``$FUZZFARM_BENCH_E2E_LENGTHS`` (comma-separated seconds),
    else 20 s and 60 s (the quick profile: its own duration)."""
    env = os.environ.get("FUZZFARM_BENCH_E2E_LENGTHS")
    if env:
        return tuple(float(x) for x in env.split(",") if x.strip())
    return (prof.e2e_duration_s,) if prof.quick else (20.0, 60.0)


def ci_run(spec: C.HarnessSpec, prof: C.Profile, duration_s: float, collector: tuple[str, int, dict, str]) -> dict:
    """``fuzzfarm ci HARNESS --variant V --duration D --jobs J -o DIR --json`` (its defaults
    otherwise: strategy, triage budgets, waiting until the campaign is settled) against a fresh
    private farm of ``collector``'s kind: the command's wall time, start-up to exit, and its
    ratio to the campaign's duration."""
    cname, collect_c, cenv, chow = collector
    env = dict(cenv)
    if prof.e2e_minimize_budget_s is not None:
        env["FUZZFARM_MINIMIZE_BUDGET_S"] = f"{prof.e2e_minimize_budget_s:g}"
    if prof.e2e_verify_runs is not None:
        env["FUZZFARM_VERIFY_RUNS"] = str(prof.e2e_verify_runs)
    rec = {"harness": spec.name, "variant": spec.seed_bug.variant, "duration_s": duration_s, "jobs": prof.e2e_jobs,
           "collector": cname, "collector_how": chow, "error": None, "load_before": os.getloadavg()[0]}
    out_dir = tempfile.mkdtemp(prefix="fuzzfarm-bench-ci-")
    try:
        with K.FarmRun(fuzz_concurrency=prof.e2e_jobs, collect_concurrency=collect_c, worker_env=env,
                       harness_paths=[spec.path]) as fr:
            t0 = time.monotonic()
            rc, out, err = fr.cli("ci", spec.name, "--variant", spec.seed_bug.variant, "--duration",
                                  f"{duration_s:g}", "--jobs", str(prof.e2e_jobs), "-o", os.path.join(out_dir, "ci"),
                                  "--json", timeout=duration_s + prof.e2e_timeout_s + 120)
            rec["wall_s"] = round(time.monotonic() - t0, 2)
            rec["x_duration"] = round(rec["wall_s"] / duration_s, 2)
            rec["rc"] = rc
            report = json.loads(out) if out.strip().startswith("{") else {}
            rec["elapsed_s"] = report.get("elapsed_s")  # ci's own figure: its submit -> settled, reports written
            rec["buckets"] = (report.get("summary") or {}).get("buckets")
            rec["new_reproducible"] = report.get("new_reproducible")
            if rc not in (0, 1) or not report:
                rec["error"] = f"fuzzfarm ci exited {rc}: {(err.strip() or out.strip())[-300:]}"
    except Exception as e:  # noqa: BLE001 - one run failing must not hide the others
        rec["error"] = f"{type(e).__name__}: {e}"
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
    rec["load_after"] = os.getloadavg()[0]
    return rec


def measure_ci(prof: C.Profile, specs: list[C.HarnessSpec], log=None) -> list[dict]:
    """Per seed, per campaign length: one ``fuzzfarm ci`` run on the ``now`` collector."""
    log = log or (lambda msg: None)
    now = next(c for c in collectors() if c[0] == "now")
    out = []
    for spec in specs:
        if spec.seed_bug is None:
            continue
        for dur in lengths(prof):
            log(f"end to end: fuzzfarm ci {spec.name} --duration {dur:g} ({now[3]})")
            out.append(ci_run(spec, prof, dur, now))
    return out


def measure_campaigns(prof: C.Profile, specs: list[C.HarnessSpec], log=None) -> list[dict]:
    """Per seed, per campaign length, each collector of :func:`collectors` (farm default strategy)."""
    log = log or (lambda msg: None)
    out = []
    for spec in specs:
        if spec.seed_bug is None:
            continue
        for dur in lengths(prof):
            for col in collectors():
                log(f"end to end: {spec.name} {dur:g} s, collector {col[0]} ({col[3]})")
                try:
                    rec = one(spec, prof, DEFAULT, log, duration_s=dur, collector=col)
                except Exception as e:  # noqa: BLE001 - one campaign failing must not hide the others
                    rec = {"harness": spec.name, "variant": spec.seed_bug.variant, "strategy": DEFAULT,
                           "jobs": prof.e2e_jobs, "duration_s": dur, "collector": col[0], "marks": {},
                           "error": f"{type(e).__name__}: {e}"}
                out.append(rec)
    return out


def measure(prof: C.Profile, specs: list[C.HarnessSpec], ttb: dict | None = None, log=None) -> dict:
    log = log or (lambda msg: None)
    out = []
    if os.environ.get("FUZZFARM_BENCH_E2E_PINNED", "1") == "0":
        return {"harnesses": out, "campaigns": measure_campaigns(prof, specs, log), "ci": measure_ci(prof, specs, log)}
    for spec in specs:
        if spec.seed_bug is None:
            continue
        fast = fastest_strategy(ttb, spec.name)
        plan = [(DEFAULT, "the farm's default: `fuzzfarm submit` without --strategy")]
        if fast:
            plan.append((fast, "pinned: fastest single strategy in time_to_bug of this run"))
        else:
            plan.append((os.environ.get("FUZZFARM_BENCH_E2E_PIN", "random"),
                         "pinned ($FUZZFARM_BENCH_E2E_PIN, default random; no time_to_bug in this run)"))
        for strategy, how in plan:
            log(f"end to end: {spec.name} ({strategy}: {how})")
            try:
                rec = one(spec, prof, strategy, log)
            except Exception as e:  # noqa: BLE001 - one campaign failing must not hide the others
                rec = {"harness": spec.name, "variant": spec.seed_bug.variant, "strategy": strategy,
                       "jobs": prof.e2e_jobs, "marks": {}, "error": f"{type(e).__name__}: {e}"}
            rec["strategy_choice"] = how
            out.append(rec)
    return {"harnesses": out, "campaigns": measure_campaigns(prof, specs, log), "ci": measure_ci(prof, specs, log)}


def campaign_rows(data: dict) -> list[list[str]]:
    out = []
    for h in data.get("campaigns", []):
        case = f"{h['harness']}/{h['variant']} {h['duration_s']:g} s x {h['jobs']} job(s), collector {h['collector']}"
        m, d = h["marks"], float(h["duration_s"])
        line = ", ".join(f"{label} {m[k]:g} s (x{m[k] / d:.2f})" for k, label in CAMPAIGN_MILESTONES if k in m)
        out.append([case, "seconds from `fuzzfarm submit` (x campaign duration)", line or "-"])
        per = h.get("collector_cpu_s_per_bucket")
        out.append([case, "collector CPU s per bucket; load", f"{per if per is not None else '-'} "
                    f"({h.get('collector_cpu_s', '-')} s / {h.get('buckets', '-')} buckets; {h.get('crashes_reported')} "
                    f"crashes, {h.get('crashes_joined_unreplayed', 0)} joined unreplayed); collector: "
                    f"{h.get('collector_how', '')}; load {h.get('load_before', 0):.1f} -> {h.get('load_after', 0):.1f}"])
        slow = (h.get("bucket_steps") or [None])[0]
        if slow:
            out.append([case, "its slowest minimization", f"{slow['minimize_s']} s, {slow['minimize_runs']} runs "
                        f"({slow['kind']} at {' < '.join(slow['crash_state'])}; {slow['size'][0]} -> {slow['size'][1]} "
                        f"bytes, preemptions {slow['preemptions'][0]} -> {slow['preemptions'][1]}"
                        + (f"; {slow['minimize_note']}" if slow.get("minimize_note") else "") + ")"])
        a = h.get("audit")
        if a:
            out.append([case, "joined unreplayed, replayed afterwards", f"{a['same_signature']}/{a['replayed']} gave "
                        f"their bucket's signature ({a['joined_unreplayed']} joined unreplayed)"
                        + (f"; other: {a['other']}" if a["other"] else "")])
        if h.get("error"):
            out.append([case, "error", h["error"]])
        if h["collector"] == "now":  # beside it: `fuzzfarm ci` at the same length, on the same kind of farm
            out += ci_rows(data, h)
    return out


def ci_rows(data: dict, camp: dict) -> list[list[str]]:
    """The ``fuzzfarm ci`` run of ``camp``'s seed and length, as a ratio to the duration."""
    out = []
    for c in data.get("ci", []):
        if (c["harness"], float(c["duration_s"])) != (camp["harness"], float(camp["duration_s"])):
            continue
        case = f"{c['harness']}/{c['variant']} {c['duration_s']:g} s x {c['jobs']} job(s), `fuzzfarm ci`"
        if c.get("wall_s") is None or c.get("error"):
            out.append([case, "error", c.get("error") or "no measurement"])
            continue
        out.append([case, "`fuzzfarm ci --duration D` wall, start to exit (x campaign duration)",
                    f"{c['wall_s']:g} s (x{c['x_duration']:.2f}); exit {c['rc']}, {c.get('buckets')} bucket(s), "
                    f"{c.get('new_reproducible')} new reproducible; ci's own submit -> settled + reports "
                    f"{c.get('elapsed_s')} s; collector: {c['collector_how']}; load {c['load_before']:.1f} -> "
                    f"{c['load_after']:.1f}"])
    return out


def rows(data: dict) -> list[list[str]]:
    out = []
    for h in data["harnesses"]:
        case = f"{h['harness']}/{h['variant']} {h['strategy']}, {h['jobs']} job(s)"
        m = h["marks"]
        line = ", ".join(f"{label} {m[k]:g} s" for k, label in MILESTONES if k in m)
        out.append([case, "seconds from `fuzzfarm submit`", line or "-"])
        if "verified" in m and "farm_start_s" in h:
            out.append([case, "including farm start-up", f"farm ready in {h['farm_start_s']:g} s; reproducible "
                        f"{h['from_farm_start'].get('reproducible', '-')} s, verified + fix-checked "
                        f"{h['from_farm_start'].get('fix_checked', '-')} s, triage done "
                        f"{h['from_farm_start']['verified']:g} s after the farm's start"])
        if h.get("error"):
            out.append([case, "error", h["error"]])
        states = ", ".join(f"{k[6:]} {v:g} s" for k, v in m.items() if k.startswith("state:"))
        if states:
            out.append([case, "bucket states first seen at", f"{states}; {h.get('crashes_reported')} crashes "
                        f"reported, {h.get('crashes_intaken')} intaken ({h.get('crashes_joined_unreplayed', 0)} joined "
                        f"unreplayed), {h.get('buckets')} bucket(s) by then"])
        b = h.get("bucket")
        if b:
            out.append([case, "its bucket", f"{b.get('original_size')} -> {b.get('minimized_size')} bytes, preemptions "
                        f"{b.get('preemptions_before')} -> {b.get('preemptions_after')}, minimized in "
                        f"{b.get('minimize_s')} s, verify {b.get('verify_ok')}/{b.get('verify_n')}, fixed variant "
                        f"clean: {b.get('fixed')}"])
    return out


def run(prof: C.Profile, only=None, log=None, ttb: dict | None = None) -> dict:
    t0 = time.monotonic()
    specs, notes = C.harnesses(only)
    data = measure(prof, specs, ttb, log)
    settings = {"jobs": prof.e2e_jobs, "duration_s": prof.e2e_duration_s, "timeout_s": prof.e2e_timeout_s,
                "collector": "seed-bug rows: -c 1; campaign rows: " + "; ".join(f"{c[0]}: {c[3]}" for c in collectors()),
                "campaign lengths": list(lengths(prof)), "poll": "0.1 s",
                "minimize_budget_s": prof.e2e_minimize_budget_s or "farm default (FUZZFARM_MINIMIZE_BUDGET_S, 60)",
                "verify_runs": prof.e2e_verify_runs or "farm default (FUZZFARM_VERIFY_RUNS, 10)"}
    notes.append(f"the campaign ({prof.e2e_jobs} job(s), {prof.e2e_duration_s:g} s) keeps fuzzing while the "
                 "collector (one process) intakes every reported crash and triages the bucket, as on one 2-core "
                 "machine; seconds from the submit include fuzz-process start-up, the 'including farm start-up' "
                 "row adds the farm's own (redis-server + workers ready)")
    return C.section("end_to_end", "End to end", prof, settings, rows(data) + campaign_rows(data), data, notes, t0)


if __name__ == "__main__":
    raise SystemExit(C.standalone("end_to_end", __doc__, run))
