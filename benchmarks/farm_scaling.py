"""Farm scaling and overhead: the same campaign on 1 and 2 worker processes vs bare atheris on
one core for the same time.

    python -m benchmarks.farm_scaling [--quick] [--json] [--harness NAME]

* bare: ``fuzzfarm.engine.run_fuzz_job`` (strategy ``bytes``) called directly, no Celery, no
  Redis: one atheris process, restarted after a crash exactly as a farm job restarts it;
* farm c=1 / c=2: a private farm (``fuzzfarm.farm.embedded``: redis-server, a fuzz worker with
  ``-c c`` pool processes, a collector with ``-c 1``) running a campaign of ``c`` jobs of the
  same duration, submitted with ``fuzzfarm submit``; measured from the submit until the
  campaign is settled (fuzzed and triaged).

Reported: total execs and the ratio to bare (ideal: c), the campaign's wall time, and the share
of CPU time spent outside the fuzz target (Celery worker and pool processes, corpus sync and
merges, the collector, redis-server), from per-process CPU times in /proc. A fixed variant that
never fails is fuzzed (cluster-builder's; a crash would restart the fuzzer and be triaged, which
is not overhead). The Redis traffic of
these campaigns is the ``redis_traffic`` benchmark.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time

from benchmarks import common as C
from benchmarks import farmkit as K


def bare(spec: C.HarnessSpec, variant: str, seconds: float) -> dict:
    from fuzzfarm import engine
    work = tempfile.mkdtemp(prefix="fuzzfarm-bench-bare-")
    sampler = C.CPUSampler({os.getpid(): "benchmark process"}, K.classifier([spec.path]), interval=0.2).start()
    crashes = []
    t0, th0 = time.monotonic(), time.thread_time()
    try:
        res = engine.run_fuzz_job(harness=spec.name, variant=variant, strategy="bytes", seed=1, duration_s=seconds,
                                  corpus=[], workdir=work, on_crash=crashes.append)
    finally:
        wall = time.monotonic() - t0
        supervisor = time.thread_time() - th0
        totals = sampler.stop()
        shutil.rmtree(work, ignore_errors=True)
    totals.pop("benchmark process", None)  # the sampler itself; the supervising thread is counted below
    totals["engine supervisor (bare)"] = round(supervisor, 3)
    return {"execs": res.stats.execs, "wall_s": round(wall, 2), "restarts": res.restarts, "crashes": len(crashes),
            "error": res.error, "cpu": K.cpu_summary(totals)}


def farm(spec: C.HarnessSpec, variant: str, seconds: float, c: int, *, capacity: bool = False) -> dict:
    with K.FarmRun(fuzz_concurrency=c, harness_paths=[spec.path]) as fr:
        st = fr.store()
        sampler = fr.sampler.start()
        before = K.commandstats(fr.client)
        fr.client.counts.clear()
        t0 = time.monotonic()
        cid, submit_s = fr.submit(spec.name, variant, c, seconds, "bytes")
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
        out = {"c": c, "campaign": cid, "execs": int(summary["execs"]), "wall_s": round(wall, 2),
               "submit_cli_s": round(submit_s, 2), "crashes": summary["crashes"], "buckets": summary["buckets"],
               "corpus_size": summary["corpus_size"], "status": summary["status"], "errors": summary["errors"],
               "farm_start_s": round(fr.started_s, 2), "cpu": K.cpu_summary(totals),
               "redis": {"commands": delta, "own_commands_subtracted": dict(own), "wall_s": round(wall, 2),
                         "cpu_s": totals.get(K.CAT_REDIS, 0.0), "workers": c}}
        if capacity:
            out["redis"]["capacity"] = redis_capacity(fr.farm.redis.port)
        return out


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
    log(f"farm scaling: bare atheris {spec.name}/{variant} {prof.scaling_s:g} s")
    b = bare(spec, variant, prof.scaling_s)
    farms = []
    for c in (1, 2):
        log(f"farm scaling: farm with {c} worker process(es)")
        farms.append(farm(spec, variant, prof.scaling_s, c, capacity=(c == 2)))
    for f in farms:
        f["execs_ratio_vs_bare"] = f["execs"] / max(1, b["execs"])
    return {"harness": spec.name, "variant": variant, "seconds": prof.scaling_s, "bare": b, "farms": farms}


def rows(data: dict) -> list[list[str]]:
    if "bare" not in data:
        return []
    b = data["bare"]
    case0 = f"{data['harness']}/{data['variant']} {data['seconds']:g} s"
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
        out.append([f"{case0} farm, {f['c']} worker process(es)", "CPU outside the fuzz target",
                    f"{100 * (cpu['outside_share'] or 0):.1f}% of {C.fmt_num(cpu['total_s'])} CPU s ({parts})"])
    return out


def run(prof: C.Profile, only=None, log=None) -> dict:
    t0 = time.monotonic()
    specs, notes = C.harnesses(only)
    data = measure(prof, specs, log)
    settings = {"seconds": prof.scaling_s, "strategy": "bytes", "fuzz pool processes": [1, 2], "collector": "-c 1",
                "cpu sampling": "/proc/<pid>/stat every 0.2 s (psutil not needed)"}
    notes.append("the farm's wall time includes atheris start-up, the end-of-slice corpus upload and merge, and "
                 "triage of any crash; the ratio compares total execs of the same fuzzing budget per job")
    return C.section("farm_scaling", "Farm scaling and overhead", prof, settings, rows(data), data, notes, t0)


if __name__ == "__main__":
    raise SystemExit(C.standalone("farm_scaling", __doc__, run))
