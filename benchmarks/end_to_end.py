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


def one(spec: C.HarnessSpec, prof: C.Profile, strategy: str, log) -> dict:
    from fuzzfarm.farm import store as S
    bug = spec.seed_bug
    env = {}
    if prof.e2e_minimize_budget_s is not None:
        env["FUZZFARM_MINIMIZE_BUDGET_S"] = f"{prof.e2e_minimize_budget_s:g}"
    if prof.e2e_verify_runs is not None:
        env["FUZZFARM_VERIFY_RUNS"] = str(prof.e2e_verify_runs)
    rec = {"harness": spec.name, "variant": bug.variant, "strategy": strategy, "jobs": prof.e2e_jobs,
           "duration_s": prof.e2e_duration_s, "worker_env": env, "marks": {}, "error": None}
    with K.FarmRun(fuzz_concurrency=prof.e2e_jobs, collect_concurrency=1, worker_env=env,
                   harness_paths=[spec.path]) as fr:
        rec["farm_start_s"] = round(fr.started_s, 2)
        st = fr.store()
        r = fr.client
        sampler = fr.sampler.start()
        before = K.commandstats(r)
        r.counts.clear()
        t0 = time.monotonic()
        cid, submit_s = fr.submit(spec.name, bug.variant, prof.e2e_jobs, prof.e2e_duration_s, strategy)
        marks = rec["marks"]
        marks["submitted"] = round(time.monotonic() - t0, 2)
        rec["campaign"] = cid
        rec["strategy_used"] = (st.campaign(cid) or {}).get("strategy")
        seen: set[str] = set()
        bid = None
        deadline = t0 + prof.e2e_timeout_s
        while time.monotonic() < deadline:
            now = round(time.monotonic() - t0, 2)
            if "first_crash" not in marks and r.scard(S.P + f"campaign:{cid}:crashes") > 0:
                marks["first_crash"] = now
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
                if brec.get("state") == S.B_DONE:
                    marks["verified"] = now
                    if not brec.get("reproducible"):
                        rec["error"] = (f"triage done but not reproducible ({brec.get('verify_ok')}/"
                                        f"{brec.get('verify_n')} replays)")
                    break
                if brec.get("state") == S.B_FAILED:
                    rec["error"] = f"triage failed: {brec.get('error')}"
                    break
            states = [st.job(cid, n).get("state") for n in range(prof.e2e_jobs)]
            if bid is None and all(s in S.JOB_FINAL for s in states):
                rec["error"] = f"the campaign ended ({', '.join(states)}) without the seed bug"
                break
            time.sleep(0.1)
        else:
            rec["error"] = f"no verified reproducer within {prof.e2e_timeout_s:g} s"
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


def measure(prof: C.Profile, specs: list[C.HarnessSpec], ttb: dict | None = None, log=None) -> dict:
    log = log or (lambda msg: None)
    out = []
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
    return {"harnesses": out}


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
                "collector": "-c 1", "poll": "0.1 s",
                "minimize_budget_s": prof.e2e_minimize_budget_s or "farm default (FUZZFARM_MINIMIZE_BUDGET_S, 60)",
                "verify_runs": prof.e2e_verify_runs or "farm default (FUZZFARM_VERIFY_RUNS, 10)"}
    notes.append(f"the campaign ({prof.e2e_jobs} job(s), {prof.e2e_duration_s:g} s) keeps fuzzing while the "
                 "collector (one process) intakes every reported crash and triages the bucket, as on one 2-core "
                 "machine; seconds from the submit include fuzz-process start-up, the 'including farm start-up' "
                 "row adds the farm's own (redis-server + workers ready)")
    return C.section("end_to_end", "End to end", prof, settings, rows(data), data, notes, t0)


if __name__ == "__main__":
    raise SystemExit(C.standalone("end_to_end", __doc__, run))
