"""Farm scaling and overhead: the same fuzzing on 1 and 2 farm worker processes against bare
atheris, on a fixed variant (no crash, so no crash handling) from the same fixed corpus.

    python -m benchmarks.farm_scaling [--quick] [--json] [--harness NAME]

* corpus: a short bare atheris run of the fixed variant (seed 1) makes it; bare and farm runs
  all start from exactly these inputs (seeded into the farm's Redis corpus, marked as merged so
  the farm does not prune the seed itself: a merge of what the campaign adds still counts);
* farm c=1 / c=2: a private farm (``fuzzfarm.farm.embedded``: redis-server, a fuzz worker with
  ``-c c`` pool processes, a collector with ``-c 1``) running a campaign of ``c`` jobs of the
  same duration, submitted with ``fuzzfarm submit``; measured from the submit until the
  campaign is settled and both queues are drained (the corpus merge its end queued has run);
* bare: ``fuzzfarm.engine.run_fuzz_job`` (strategy ``bytes``) called directly, no Celery, no
  Redis: one atheris process with the libFuzzer seed of the c=1 campaign's job (so the same
  inputs and the same mutations: exec counts compare).

Farm efficiency, two figures per c (goal >= 0.9 at 2 workers):
(a) CPU: target-CPU seconds in the fuzz children / CPU seconds of the whole fuzz worker (its
    Celery main and pool processes and every child of theirs). The corpus merge (libFuzzer
    ``-merge=1``, two atheris processes) ran there at a slice's end and was the largest part of
    the rest; it is now a collector task (``fuzzfarm.merge_corpus``), counted as "corpus merge"
    wherever it runs ("on the fuzz worker" would count in (a)). Beside (a), "whole farm": target
    CPU / the CPU of every farm process (fuzz worker, collector, merge, redis-server), so
    moving work off the fuzz worker hides nothing;
(b) execs: execs/s of the farm (execs / wall from the campaign's record to its last job's end:
    dispatch, atheris start-up, stats ticks, corpus upload) / execs/s of c bare processes run
    side by side right after it with the farm jobs' seeds (= c x bare where the machine has the
    cores; on a shared machine both sides see the same load). The submit command's own start-up
    is the client's and is reported apart (``submit_cli_s``).
Bare and farm use the same corpus and seeds, so the old "1 worker x1.06 bare" (different seeds
and an empty corpus) cannot recur: what differs is the farm.
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


def bare(spec: C.HarnessSpec, variant: str, seconds: float, corpus: list[bytes] = (), seeds=(1,)) -> dict:
    """``len(seeds)`` bare atheris processes at once (one per seed, as the farm's jobs run side
    by side), each from ``corpus``; execs summed, wall from the first start to the last end."""
    import threading

    from fuzzfarm import engine
    from fuzzfarm.farm import jobs
    sampler = C.CPUSampler({os.getpid(): "benchmark process"}, K.classifier([spec.path]), interval=0.2).start()
    results, sup = [None] * len(seeds), [0.0] * len(seeds)

    def one(i: int, seed: int) -> None:
        work = tempfile.mkdtemp(prefix="fuzzfarm-bench-bare-")
        th0 = time.thread_time()
        try:
            results[i] = engine.run_fuzz_job(harness=spec.name, variant=variant, strategy="bytes", seed=seed,
                                             duration_s=seconds, corpus=list(corpus), workdir=work,
                                             on_crash=lambda _c: None, timeout_s=jobs.LIBFUZZER_TIMEOUT_S,
                                             rss_limit_mb=jobs.RSS_LIMIT_MB)
        finally:
            sup[i] = time.thread_time() - th0
            shutil.rmtree(work, ignore_errors=True)

    t0 = time.monotonic()
    threads = [threading.Thread(target=one, args=(i, sd)) for i, sd in enumerate(seeds)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - t0
    totals = sampler.stop()
    totals.pop("benchmark process", None)  # the sampler itself; the supervising threads are counted below
    totals["engine supervisor (bare)"] = round(sum(sup), 3)
    done = [r for r in results if r is not None]
    return {"processes": len(seeds), "execs": sum(r.stats.execs for r in done), "wall_s": round(wall, 2),
            "restarts": sum(r.restarts for r in done), "crashes": sum(r.crashes for r in done),
            "error": next((r.error for r in done if r.error), None), "seeds": list(seeds), "corpus_in": len(corpus),
            "cpu": K.cpu_summary(totals)}


def farm(spec: C.HarnessSpec, variant: str, seconds: float, c: int, *, capacity: bool = False,
         corpus: list[bytes] = (), beside: bool = False) -> dict:
    """``beside``: c bare processes with the farm jobs' seeds run at the same time as the farm
    (``bare_beside``), so both sides see the same machine at the same moment."""
    import threading

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
        twin: dict = {}
        th = None
        if beside:
            twin_seeds = [jobs.slice_seed({"campaign": cid, "job": n, "slice": 0}) for n in range(c)]
            th = threading.Thread(target=lambda: twin.update(bare(spec, variant, seconds, corpus, seeds=twin_seeds)))
            th.start()
        steady = steady_window(fr, st, cid, c, seconds)
        time.sleep(max(0.0, seconds - (time.monotonic() - t0)))
        deadline = time.monotonic() + seconds + 300
        while not (fr.settled(st, cid) and fr.drained()):  # and the corpus merge it queued has run
            if time.monotonic() > deadline:
                raise RuntimeError(f"campaign {cid} on {c} worker process(es) did not settle; see {fr.workdir}")
            time.sleep(0.2)
        if th is not None:
            th.join()
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
        # the farm's own wall: from the campaign's record (the submit command's start-up is the
        # client's, not the farm's) to its last job's end (a fixed variant: nothing to triage)
        farm_wall = max((t.get("finished", 0.0) for t in timing), default=0.0) or wall
        out = {"c": c, "campaign": cid, "execs": int(summary["execs"]), "wall_s": round(wall, 2), "seeds": seeds,
               "corpus_in": len(corpus), "jobs_timing_s": timing,
               "farm_wall_s": round(farm_wall, 2),
               "submit_cli_s": round(submit_s, 2), "crashes": summary["crashes"], "buckets": summary["buckets"],
               "corpus_size": summary["corpus_size"], "status": summary["status"], "errors": summary["errors"],
               "farm_start_s": round(fr.started_s, 2), "cpu": K.cpu_summary(totals),
               "redis": {"commands": delta, "own_commands_subtracted": dict(own), "wall_s": round(wall, 2),
                         "cpu_s": totals.get(K.CAT_REDIS, 0.0), "workers": c}}
        out["redis"]["steady"] = steady
        if twin:
            out["bare_beside"] = twin
        if capacity:
            out["redis"]["capacity"] = redis_capacity(fr.farm.redis.port)
        return out


def steady_window(fr, st, cid: str, c: int, seconds: float) -> dict | None:
    """Redis commands while all ``c`` jobs fuzz (from 1 s after the last one started to 1 s
    before the first one ends): the steady traffic of a fleet, without the campaign's start,
    end and settling. None when the window is under 2 s."""
    from fuzzfarm.farm import store as S
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
    from benchmarks import redis_split
    mon = redis_split.Monitor(fr.farm.redis.port).start()  # whose commands (redis_traffic's split)
    fr.client.counts.clear()
    a, ta = K.commandstats(fr.client), time.monotonic()
    time.sleep(max(0.0, end - time.monotonic()))
    own = fr.client.counts.copy()
    b, tb = K.commandstats(fr.client), time.monotonic()
    lines = mon.stop()
    return {"commands": K.stats_delta(a, b, own), "wall_s": round(tb - ta, 2), "workers": c,
            "by_owner": redis_split.classify(lines) if lines is not None else None}


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
    farms, bares = [], {}
    for c in (1, 2):  # each farm run right before its bare twin (the same seeds), so the load is alike
        log(f"farm scaling: farm with {c} worker process(es)")
        f = farm(spec, variant, prof.scaling_s, c, capacity=(c == 2), corpus=corpus)
        log(f"farm scaling: {c} bare atheris process(es) {spec.name}/{variant} {prof.scaling_s:g} s, its seeds")
        b = bares[c] = bare(spec, variant, prof.scaling_s, corpus, seeds=f["seeds"])
        f["execs_ratio_vs_bare"] = f["execs"] / max(1, bares[1]["execs"])
        f["efficiency"] = efficiency(f, b)
        farms.append(f)
    beside = []
    if os.environ.get("FUZZFARM_BENCH_SCALING_BESIDE", "1") == "1":
        for c in (1, 2):  # the farm and its bare twins at the same time: no drift of the machine's load between them
            log(f"farm scaling: farm with {c} worker process(es) and {c} bare process(es) at the same time")
            f = farm(spec, variant, prof.scaling_s, c, corpus=corpus, beside=True)
            if f.get("bare_beside"):
                f["efficiency"] = efficiency(f, f["bare_beside"])
            beside.append(f)
    return {"harness": spec.name, "variant": variant, "seconds": prof.scaling_s, "corpus_in": len(corpus),
            "bare": bares[1], "bare_2": bares[2], "farms": farms, "beside": beside}


def efficiency(f: dict, b: dict) -> dict:
    """(a) target CPU / fuzz-worker CPU; (b) the farm's execs/s / the execs/s of as many bare
    processes side by side, same seeds, same corpus (= c x bare when the machine has the cores);
    and execs per target-CPU second against bare's."""
    by = f["cpu"]["by_category_s"]
    target = by.get(K.CAT_TARGET, 0.0)
    # the fuzz worker's processes: its Celery main and pool processes and their children (a
    # corpus merge counts here if it runs there; the farm queues it to the collector)
    worker = target + by.get(K.CAT_FUZZ_WORKER, 0.0) + by.get(K.CAT_MERGE_ON_FUZZ, 0.0)
    rate = f["execs"] / max(1e-9, f["farm_wall_s"])
    b_rate = b["execs"] / max(1e-9, b["wall_s"])
    b_cpu = b["cpu"]["target_s"]
    farm_cpu = f["cpu"]["total_s"]
    return {"cpu": target / worker if worker > 0 else None,
            "cpu_whole_farm": target / farm_cpu if farm_cpu > 0 else None,
            "merge_cpu_s": round(by.get(K.CAT_MERGE, 0.0), 2), "farm_cpu_s": round(farm_cpu, 2),
            "execs": rate / b_rate if b_rate > 0 else None,
            "execs_per_target_cpu_vs_bare": (f["execs"] / target) / (b["execs"] / b_cpu) if target > 0 and b_cpu > 0
            and b["execs"] else None,
            "target_cpu_s": round(target, 2), "worker_cpu_s": round(worker, 2), "execs_per_s": round(rate, 1),
            "bare_execs_per_s": round(b_rate, 1), "bare_processes": b["processes"]}


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
                        f"CPU s; (b) execs {_r(e['execs'])} = {C.fmt_num(e['execs_per_s'])} execs/s (campaign "
                        f"recorded -> last job done, {f['farm_wall_s']:g} s) / {C.fmt_num(e['bare_execs_per_s'])} of "
                        f"{e['bare_processes']} bare process(es) side by side; execs per target CPU s "
                        f"{_r(e['execs_per_target_cpu_vs_bare'])} of bare's; whole farm {_r(e['cpu_whole_farm'])} = "
                        f"target CPU s / {e['farm_cpu_s']:g} CPU s of every farm process (corpus merge on the "
                        f"collector {e['merge_cpu_s']:g} s, Redis, collector)"])
        out.append([f"{case0} farm, {f['c']} worker process(es)", "CPU outside the fuzz target",
                    f"{100 * (cpu['outside_share'] or 0):.1f}% of {C.fmt_num(cpu['total_s'])} CPU s ({parts})"])
    for f in data.get("beside", []):
        e = f.get("efficiency") or {}
        if e:
            out.append([f"{case0} farm, {f['c']} worker process(es) and {f['c']} bare at the same time",
                        "farm efficiency, no load drift between the two sides",
                        f"(a) CPU {_r(e['cpu'])}; (b) execs {_r(e['execs'])} = {C.fmt_num(e['execs_per_s'])} execs/s "
                        f"/ {C.fmt_num(e['bare_execs_per_s'])} of the bare processes; execs per target CPU s "
                        f"{_r(e['execs_per_target_cpu_vs_bare'])} of bare's; target CPU s farm {e['target_cpu_s']:g} / "
                        f"bare {f['bare_beside']['cpu']['target_s']:g}"])
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
