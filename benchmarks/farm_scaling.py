"""Farm scaling and overhead: the same fuzzing on 1 and 2 farm worker processes against bare
atheris, on a fixed variant (no crash, so no crash handling) from the same fixed corpus.

    python -m benchmarks.farm_scaling [--quick] [--json] [--harness NAME]

* corpus: a short bare atheris run of the fixed variant (seed 1) makes it; bare and farm runs
  all start from exactly these inputs (seeded into the farm's Redis corpus, marked as merged so
  the farm does not prune the seed itself: a merge of what the campaign adds still counts);
* farm c=1 / c=2: a private farm (``fuzzfarm.farm.embedded``: redis-server, a fuzz worker with
  ``-c c`` pool processes, a collector with ``-c 1``) running a campaign of ``c`` jobs of the
  same duration, submitted with ``fuzzfarm submit``; measured from the submit until the
  campaign is settled;
* bare: ``fuzzfarm.engine.run_fuzz_job`` (strategy ``bytes``) called directly, no Celery, no
  Redis: one atheris process with the libFuzzer seed of the c=1 campaign's job (so the same
  inputs and the same mutations: exec counts compare).

Farm efficiency, two figures per c (goal >= 0.9 at 2 workers):
(a) CPU: target-CPU seconds in the fuzz children / CPU seconds of the whole fuzz worker (its
    Celery main and pool processes, the fuzz children, corpus merges);
(b) execs: execs/s of the farm (execs / submit->settled wall) / (c x bare execs/s (execs /
    bare wall)); both walls include atheris start-up. On a machine shared with other work (b)
    also moves with the load between the runs: (a) and the per-CPU-second rate do not.
The Redis traffic of these campaigns is the ``redis_traffic`` benchmark.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time

from benchmarks import common as C
from benchmarks import farmkit as K


def fixed_corpus(spec: C.HarnessSpec, variant: str, seconds: float) -> list[bytes]:
    """The inputs every run of this benchmark starts from: what a bare run of ``seconds`` found."""
    from fuzzfarm import engine
    work = tempfile.mkdtemp(prefix="fuzzfarm-bench-corpus-")
    try:
        res = engine.run_fuzz_job(harness=spec.name, variant=variant, strategy="bytes", seed=1, duration_s=seconds,
                                  corpus=[], workdir=work, on_crash=lambda _c: None)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return sorted(set(res.new_corpus))


def bare(spec: C.HarnessSpec, variant: str, seconds: float, corpus: list[bytes] = (), seed: int = 1) -> dict:
    from fuzzfarm import engine
    from fuzzfarm.farm import jobs
    work = tempfile.mkdtemp(prefix="fuzzfarm-bench-bare-")
    sampler = C.CPUSampler({os.getpid(): "benchmark process"}, K.classifier([spec.path]), interval=0.2).start()
    crashes = []
    t0, th0 = time.monotonic(), time.thread_time()
    try:
        res = engine.run_fuzz_job(harness=spec.name, variant=variant, strategy="bytes", seed=seed, duration_s=seconds,
                                  corpus=list(corpus), workdir=work, on_crash=crashes.append,
                                  timeout_s=jobs.LIBFUZZER_TIMEOUT_S, rss_limit_mb=jobs.RSS_LIMIT_MB)
    finally:
        wall = time.monotonic() - t0
        supervisor = time.thread_time() - th0
        totals = sampler.stop()
        shutil.rmtree(work, ignore_errors=True)
    totals.pop("benchmark process", None)  # the sampler itself; the supervising thread is counted below
    totals["engine supervisor (bare)"] = round(supervisor, 3)
    return {"execs": res.stats.execs, "wall_s": round(wall, 2), "restarts": res.restarts, "crashes": len(crashes),
            "error": res.error, "seed": seed, "corpus_in": len(corpus), "cpu": K.cpu_summary(totals)}


def farm(spec: C.HarnessSpec, variant: str, seconds: float, c: int, *, capacity: bool = False,
         corpus: list[bytes] = ()) -> dict:
    from fuzzfarm.farm import jobs
    with K.FarmRun(fuzz_concurrency=c, harness_paths=[spec.path]) as fr:
        st = fr.store()
        if corpus:  # the same starting inputs as bare; the seed itself is not the farm's to merge
            st.add_corpus(spec.name, corpus)
            st.set_corpus_merged_size(spec.name, st.corpus_size(spec.name))
        sampler = fr.sampler.start()
        before = K.commandstats(fr.client)
        fr.client.counts.clear()
        t0 = time.monotonic()
        cid, submit_s = fr.submit(spec.name, variant, c, seconds, "bytes")
        steady = steady_window(fr, st, cid, c, seconds)
        time.sleep(max(0.0, seconds - (time.monotonic() - t0)))
        deadline = time.monotonic() + seconds + 300
        while not fr.settled(st, cid):
            if time.monotonic() > deadline:
                raise RuntimeError(f"campaign {cid} on {c} worker process(es) did not settle; see {fr.workdir}")
            time.sleep(1.0)
        wall = time.monotonic() - t0
        own = fr.client.counts.copy()
        after = K.commandstats(fr.client)
        totals = sampler.stop()
        summary = st.campaign_summary(cid)
        delta = K.stats_delta(before, after, own)
        seeds = [jobs.slice_seed({"campaign": cid, "job": n, "slice": 0}) for n in range(c)]
        created = float((st.campaign(cid) or {}).get("created") or 0)
        timing = [{k: round(float(j[k]) - created, 2) for k in ("started", "finished") if j.get(k)}
                  for j in st.jobs(cid)]
        out = {"c": c, "campaign": cid, "execs": int(summary["execs"]), "wall_s": round(wall, 2), "seeds": seeds,
               "corpus_in": len(corpus), "jobs_timing_s": timing,
               "submit_cli_s": round(submit_s, 2), "crashes": summary["crashes"], "buckets": summary["buckets"],
               "corpus_size": summary["corpus_size"], "status": summary["status"], "errors": summary["errors"],
               "farm_start_s": round(fr.started_s, 2), "cpu": K.cpu_summary(totals),
               "redis": {"commands": delta, "own_commands_subtracted": dict(own), "wall_s": round(wall, 2),
                         "cpu_s": totals.get(K.CAT_REDIS, 0.0), "workers": c}}
        out["redis"]["steady"] = steady
        if capacity:
            out["redis"]["capacity"] = redis_capacity(fr.farm.redis.port)
        return out


def steady_window(fr, st, cid: str, c: int, seconds: float) -> dict | None:
    """Redis commands while all ``c`` jobs fuzz (from 1 s after the last one started to 1 s
    before the first one ends): the steady traffic of a fleet, without the campaign's start,
    end and settling. None when the window is under 2 s."""
    from fuzzfarm import store as S
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if all(j.get("state") == S.JOB_RUNNING for j in st.jobs(cid)):
            break
        time.sleep(0.1)
    else:
        return None
    end = time.monotonic() + seconds - 2.0  # the jobs have run a moment already
    time.sleep(1.0)
    if end - time.monotonic() < 2.0:
        return None
    fr.client.counts.clear()
    a, ta = K.commandstats(fr.client), time.monotonic()
    time.sleep(max(0.0, end - time.monotonic()))
    own = fr.client.counts.copy()
    b, tb = K.commandstats(fr.client), time.monotonic()
    return {"commands": K.stats_delta(a, b, own), "wall_s": round(tb - ta, 2), "workers": c}


def redis_capacity(port: int, n: int = 20000) -> dict:
    """Simple-command throughput of this redis-server on this machine (redis-benchmark)."""
    import shutil as sh
    import subprocess
    rb = sh.which("redis-benchmark")
    if rb is None:
        return {"available": False, "why": "redis-benchmark is not installed"}
    try:
        p = subprocess.run([rb, "-h", "127.0.0.1", "-p", str(port), "-n", str(n), "-c", "10",
                            "-t", "set,get,hset,lpush", "--csv"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as e:
        return {"available": False, "why": str(e)}
    rps = {}
    for ln in p.stdout.splitlines():
        parts = [x.strip('"') for x in ln.split(",")]
        if len(parts) >= 2 and parts[0] != "test":
            try:
                rps[parts[0]] = float(parts[1])
            except ValueError:
                pass
    if not rps:
        return {"available": False, "why": f"no output from redis-benchmark (rc {p.returncode})"}
    return {"available": True, "rps": rps, "mean_rps": sum(rps.values()) / len(rps), "clients": 10, "requests": n}


def measure(prof: C.Profile, specs: list[C.HarnessSpec], log=None) -> dict:
    log = log or (lambda msg: None)
    # A fixed variant that never fails: checker's keeps upstream hazard P3(b), whose crashes
    # (found within seconds since -len_control=0) would be triaged and merged around, and the
    # figures would measure the collector instead of the farm's overhead.
    spec = next((s for s in specs if s.seed_bug and not s.may_fail_fixed),
                next((s for s in specs if s.seed_bug), specs[0] if specs else None))
    if spec is None:
        return {"error": "no harness"}
    variant = spec.fixed_variants[0] if spec.fixed_variants else spec.variants[0]
    corpus_s = max(2.0, prof.scaling_s / 2)
    log(f"farm scaling: the fixed corpus ({spec.name}/{variant}, {corpus_s:g} s bare)")
    corpus = fixed_corpus(spec, variant, corpus_s)
    farms = []
    log("farm scaling: farm with 1 worker process")
    farms.append(farm(spec, variant, prof.scaling_s, 1, corpus=corpus))
    log(f"farm scaling: bare atheris {spec.name}/{variant} {prof.scaling_s:g} s, the c=1 job's seed")
    b = bare(spec, variant, prof.scaling_s, corpus, seed=farms[0]["seeds"][0])
    log("farm scaling: farm with 2 worker processes")
    farms.append(farm(spec, variant, prof.scaling_s, 2, capacity=True, corpus=corpus))
    b_rate = b["execs"] / max(1e-9, b["wall_s"])
    b_cpu_rate = b["execs"] / max(1e-9, b["cpu"]["target_s"])
    for f in farms:
        f["execs_ratio_vs_bare"] = f["execs"] / max(1, b["execs"])
        f["efficiency"] = efficiency(f, b_rate, b_cpu_rate)
    return {"harness": spec.name, "variant": variant, "seconds": prof.scaling_s, "corpus_in": len(corpus),
            "bare": b, "farms": farms}


def efficiency(f: dict, bare_rate: float, bare_cpu_rate: float) -> dict:
    """(a) target CPU / fuzz-worker CPU; (b) farm execs/s / (c x bare execs/s); and the execs per
    target-CPU second against bare's (how much of the target's CPU the farm's fuzzing uses as well)."""
    by = f["cpu"]["by_category_s"]
    target = by.get(K.CAT_TARGET, 0.0)
    worker = target + by.get(K.CAT_MERGE, 0.0) + by.get(K.CAT_FUZZ_WORKER, 0.0)
    rate = f["execs"] / max(1e-9, f["wall_s"])
    return {"cpu": target / worker if worker > 0 else None,
            "execs": rate / (f["c"] * bare_rate) if bare_rate > 0 else None,
            "execs_per_target_cpu_vs_bare": (f["execs"] / target) / bare_cpu_rate if target > 0 and bare_cpu_rate else None,
            "target_cpu_s": round(target, 2), "worker_cpu_s": round(worker, 2), "execs_per_s": round(rate, 1)}


def rows(data: dict) -> list[list[str]]:
    if "bare" not in data:
        return []
    b = data["bare"]
    case0 = f"{data['harness']}/{data['variant']} {data['seconds']:g} s"
    case0 += f", {data.get('corpus_in', 0)} corpus inputs"
    out = [[case0 + " bare atheris (1 core)", "execs, CPU outside target",
            f"{C.fmt_num(b['execs'])} execs in {b['wall_s']:g} s wall; outside target "
            f"{100 * (b['cpu']['outside_share'] or 0):.1f}% of {C.fmt_num(b['cpu']['total_s'])} CPU s"]]
    for f in data["farms"]:
        cpu = f["cpu"]
        top = sorted(((k, v) for k, v in cpu["by_category_s"].items() if k != K.CAT_TARGET), key=lambda kv: -kv[1])
        parts = ", ".join(f"{k.split(' (')[0]} {v:.1f} s" for k, v in top if v >= 0.05)
        out.append([f"{case0} farm, {f['c']} worker process(es)", "execs ratio vs bare",
                    f"x{f['execs_ratio_vs_bare']:.2f} ({C.fmt_num(f['execs'])} execs; submit -> settled "
                    f"{f['wall_s']:g} s)"])
        e = f.get("efficiency") or {}
        if e:
            out.append([f"{case0} farm, {f['c']} worker process(es)", "farm efficiency (goal >= 0.9 at 2)",
                        f"(a) CPU {_r(e['cpu'])} = {e['target_cpu_s']:g} target CPU s / {e['worker_cpu_s']:g} fuzz-worker "
                        f"CPU s; (b) execs {_r(e['execs'])} = {C.fmt_num(e['execs_per_s'])} execs/s / "
                        f"({f['c']} x bare {C.fmt_num(b['execs'] / max(1e-9, b['wall_s']))}); execs per target CPU s "
                        f"{_r(e['execs_per_target_cpu_vs_bare'])} of bare's"])
        out.append([f"{case0} farm, {f['c']} worker process(es)", "CPU outside the fuzz target",
                    f"{100 * (cpu['outside_share'] or 0):.1f}% of {C.fmt_num(cpu['total_s'])} CPU s ({parts})"])
    return out


def _r(x) -> str:
    return "-" if x is None else f"{x:.2f}"


def run(prof: C.Profile, only=None, log=None) -> dict:
    t0 = time.monotonic()
    specs, notes = C.harnesses(only)
    data = measure(prof, specs, log)
    settings = {"seconds": prof.scaling_s, "strategy": "bytes", "fuzz pool processes": [1, 2], "collector": "-c 1",
                "cpu sampling": "/proc/<pid>/stat every 0.2 s (psutil not needed)"}
    notes.append("all runs start from the same fixed corpus; bare runs with the seed of the c=1 campaign's job; the "
                 "farm's wall time includes the dispatch, atheris start-up and the end-of-slice corpus upload")
    return C.section("farm_scaling", "Farm scaling and overhead", prof, settings, rows(data), data, notes, t0)


if __name__ == "__main__":
    raise SystemExit(C.standalone("farm_scaling", __doc__, run))
