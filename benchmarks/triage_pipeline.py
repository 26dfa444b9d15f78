"""Triage pipeline: crash intake -> reproducible N/N -> fix-checked -> done, for one seed-bug
crash per harness, with the fix check's pieces run beside the verify replays
(``farm/triage_ahead.py``) and one after the other (``FUZZFARM_TRIAGE_AHEAD=0``, the old order),
alternately in one run so that both see the same machine load.

    python -m benchmarks.triage_pipeline [--quick] [--json] [--harness NAME]

The triage steps are the farm's own (``farm.triage``: intake, minimize, verify, fix_check) on a
private redis-server, called in this process (no Celery hop, no fuzzing beside them: the end to
end benchmark has those). The farm's default budgets: 10 verify replays, the full fix check,
the proof's ``FUZZFARM_PROVE_BUDGET_S`` CPU seconds. Milestones, seconds from the intake:
``reproducible`` (verify stored), ``fix_checked`` (fix verdict stored), ``done`` (proof and
final artifact stored); the ratios count from the end of the minimization (the same work in both
orders, whose time only moves with the load). The crash: the first seed-bug crash of a
``random`` job (seed 1), else of a ``bytes`` one.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time

from benchmarks import common as C


def find_crash(spec: C.HarnessSpec, seconds: float = 20.0) -> bytes | None:
    """The first seed-bug crash of a ``random`` job (seed 1), else of a ``bytes`` one."""
    from fuzzfarm import collector, engine
    for strategy in ("random", "bytes"):
        work = tempfile.mkdtemp(prefix="fuzzfarm-bench-triage-")
        crashes = []
        try:
            engine.run_fuzz_job(harness=spec.name, variant=spec.seed_bug.variant, strategy=strategy, seed=1,
                                duration_s=seconds, corpus=[], workdir=work, on_crash=crashes.append)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        for c in crashes:
            out = collector.replay(spec.name, spec.seed_bug.variant, c.data)
            if spec.seed_bug.matches(out.get("kind"), out.get("crash_state")):
                return c.data
    return None


def triage_once(url: str, spec: C.HarnessSpec, data: bytes, ahead: bool) -> dict:
    from fuzzfarm.farm import store as S
    from fuzzfarm.farm import triage, triage_ahead
    st = S.Store(url)
    st.r.flushdb()
    triage_ahead.ENABLED = ahead
    marks: dict = {}
    try:
        cid = st.create_campaign({"harness": spec.name, "variant": spec.seed_bug.variant, "strategy": "random",
                                  "jobs": 1, "duration_s": 1.0, "harness_hash": "", "version": "0"})
        sha, _ = st.report_crash(cid, 0, spec.name, spec.seed_bug.variant, data)
        t0 = time.monotonic()
        stop = threading.Event()
        box: dict = {}

        def watch() -> None:  # the fix verdict is stored inside the fix_check step: poll for it
            w = S.Store(url)
            while not stop.is_set():
                b = w.bucket(box["bid"]) if "bid" in box else None
                if b and b.get("fix_verdict") and "fix_checked" not in marks:
                    marks["fix_checked"] = round(time.monotonic() - t0, 2)
                time.sleep(0.05)

        th = threading.Thread(target=watch, daemon=True)
        th.start()
        bid = box["bid"] = triage.intake(st, cid, spec.name, spec.seed_bug.variant, sha,
                                         enqueue_triage=lambda _b: None)
        marks["bucket"] = round(time.monotonic() - t0, 2)
        triage.minimize(st, bid, owner="m", enqueue_next=lambda _b: None)
        marks["minimized"] = round(time.monotonic() - t0, 2)
        triage.verify(st, bid, owner="v", enqueue_next=lambda _b: None)
        marks["reproducible"] = round(time.monotonic() - t0, 2)
        triage.fix_check(st, bid, owner="f")
        marks["done"] = round(time.monotonic() - t0, 2)
        stop.set()
        th.join()
        b = st.bucket(bid) or {}
        return {"ahead": ahead, "marks": marks, "verify": f"{b.get('verify_ok')}/{b.get('verify_n')}",
                "fix_verdict": b.get("fix_verdict"), "proof": b.get("fix_proof_line"),
                "minimized_size": b.get("minimized_size")}
    finally:
        triage_ahead.ENABLED = True
        st.r.close()


def measure(prof: C.Profile, specs: list[C.HarnessSpec], log=None) -> dict:
    from fuzzfarm.farm.embedded import RedisServer
    log = log or (lambda msg: None)
    out = []
    work = tempfile.mkdtemp(prefix="fuzzfarm-bench-triage-redis-")
    srv = RedisServer(workdir=work).start()
    try:
        for spec in specs:
            if spec.seed_bug is None:
                continue
            log(f"triage pipeline: {spec.name}: finding a seed-bug crash")
            data = find_crash(spec)
            if data is None:
                out.append({"harness": spec.name, "error": "no seed-bug crash in 20 s of random, then of bytes"})
                continue
            runs = []
            for ahead in (True, False) if prof.quick else (True, False, False, True):
                log(f"triage pipeline: {spec.name}: {'beside' if ahead else 'in turn'}")
                runs.append(triage_once(srv.url, spec, data, ahead))
            rec = {"harness": spec.name, "input_size": len(data), "runs": runs}
            for key in ("reproducible", "fix_checked", "done"):  # from the minimized input: what differs
                a = [r["marks"][key] - r["marks"]["minimized"] for r in runs if r["ahead"] and r["marks"].get(key)]
                s = [r["marks"][key] - r["marks"]["minimized"] for r in runs if not r["ahead"] and r["marks"].get(key)]
                if a and s:
                    rec[f"{key}_ratio"] = (sum(a) / len(a)) / max(1e-9, sum(s) / len(s))
            out.append(rec)
    finally:
        srv.stop()
        shutil.rmtree(work, ignore_errors=True)
    return {"harnesses": out}


def rows(data: dict) -> list[list[str]]:
    out = []
    for h in data["harnesses"]:
        if h.get("error"):
            out.append([h["harness"], "error", h["error"]])
            continue
        for r in h["runs"]:
            m = r["marks"]
            how = "beside the verify replays" if r["ahead"] else "in turn (old order)"
            out.append([f"{h['harness']} triage, fix check {how}", "seconds from intake",
                        f"bucket {m.get('bucket')}, minimized {m.get('minimized')}, reproducible "
                        f"{m.get('reproducible')} ({r['verify']}), fix-checked {m.get('fix_checked')} "
                        f"({r['fix_verdict']}), done {m.get('done')} ({r['proof']})"])
        ratios = ", ".join(f"{k} x{h[f'{k}_ratio']:.2f}" for k in ("reproducible", "fix_checked", "done")
                           if f"{k}_ratio" in h)
        out.append([f"{h['harness']} triage", "beside / in turn (seconds after the minimization, mean)", ratios or "-"])
    return out


def run(prof: C.Profile, only=None, log=None) -> dict:
    t0 = time.monotonic()
    specs, notes = C.harnesses(only)
    data = measure(prof, specs, log)
    settings = {"verify runs": "farm default (10)", "proof": "farm default (FUZZFARM_PROVE_BUDGET_S CPU s)",
                "order": "beside, in turn" + ("" if prof.quick else ", in turn, beside")}
    notes.append("both orders run the same steps on the same input, alternately in this run; the ratio is "
                 "beside / in turn (below 1: faster)")
    return C.section("triage_pipeline", "Triage pipeline", prof, settings, rows(data), data, notes, t0)


if __name__ == "__main__":
    raise SystemExit(C.standalone("triage_pipeline", __doc__, run))
