"""Redis traffic: commands per second per worker during a campaign, from ``INFO commandstats``,
and what that means for the number of workers one Redis can serve.

    python -m benchmarks.redis_traffic [--quick] [--json] [--harness NAME]

The campaigns are ``farm_scaling``'s (a steady fixed-variant campaign on 1 and 2 fuzz worker
processes; run standalone, this runs them) and, when run by the suite, ``end_to_end``'s
(a buggy campaign: crash intake, minimization, verification, artifacts). Snapshots of
``INFO commandstats`` are taken right before the submit and right after the campaign settles;
the benchmark's own polling commands are counted client-side and subtracted.

Whose commands: the steady windows are also watched with MONITOR and split by owner
(``benchmarks/redis_split.py``): fuzzfarm's own per running job (stats ticks, lease, checks) and
per node (the janitor's and rescue's sweeps, spread over the farm's 2 nodes), Celery's and
kombu's per node (BRPOP, heartbeat events, the watchdog's ping, the unacked sweep, health
checks); from these, a fuzz worker process's whole traffic with 1 and with 2 pool processes per
node (goal <= 10 commands/s) and the processes one Redis serves at half its measured throughput.

Workers per Redis, two estimates from the same run, the smaller one is quoted:
* CPU: redis-server's CPU seconds (from /proc) per wall second per fuzz worker process; one
  Redis kept at half a core serves 0.5 / that many workers;
* commands: half of the simple-command throughput ``redis-benchmark`` measures against the same
  server on this machine, divided by the commands/s one worker sends.
"""

from __future__ import annotations

import time

from benchmarks import common as C


def _campaign(label: str, redis_data: dict, capacity: dict | None) -> dict:
    cmds = redis_data["commands"]
    wall = max(1e-9, redis_data["wall_s"])
    workers = max(1, int(redis_data["workers"]))
    calls = sum(v["calls"] for v in cmds.values())
    usec = sum(v["usec"] for v in cmds.values())
    per_worker = calls / wall / workers
    cpu_per_worker = redis_data.get("cpu_s", 0.0) / wall / workers
    est = {}
    if cpu_per_worker > 0:
        est["by_cpu"] = 0.5 / cpu_per_worker
    if capacity and capacity.get("available") and per_worker > 0:
        est["by_commands"] = 0.5 * capacity["mean_rps"] / per_worker
    top = sorted(cmds.items(), key=lambda kv: -kv[1]["calls"])[:6]
    return {"campaign": label, "workers": workers, "wall_s": redis_data["wall_s"], "calls": calls,
            "commands_per_s": calls / wall, "commands_per_s_per_worker": per_worker,
            "commandstats_usec_per_s": usec / wall, "redis_cpu_s": redis_data.get("cpu_s", 0.0),
            "redis_cpu_per_worker": cpu_per_worker, "workers_per_redis": est,
            "workers_per_redis_quoted": min(est.values()) if est else None,
            "top_commands": [[k, v["calls"]] for k, v in top], "commands": cmds}


def analyse(scaling: dict, e2e: dict | None = None) -> dict:
    out = []
    capacity = None
    for f in scaling.get("farms", []):
        capacity = f["redis"].get("capacity") or capacity
    steady = {}
    for f in scaling.get("farms", []):
        out.append(_campaign(f"{scaling['harness']}/{scaling['variant']} bytes, {f['c']} fuzz worker process(es), "
                             f"{scaling['seconds']:g} s, submit -> settled", f["redis"], capacity))
        if f["redis"].get("steady"):
            c = _campaign(f"{scaling['harness']}/{scaling['variant']} bytes, {f['c']} fuzz worker process(es), "
                          f"steady (all jobs fuzzing)", {**f["redis"]["steady"], "cpu_s": 0.0}, capacity)
            c["steady"] = True
            out.append(c)
            steady[f["c"]] = c["commands_per_s"]
    for h in (e2e or {}).get("harnesses", []):
        if h.get("redis"):
            out.append(_campaign(f"{h['harness']}/{h['variant']} {h['strategy']} end to end, {h['jobs']} fuzz worker "
                                 f"process(es)", h["redis"], capacity))
    owners = {f["c"]: f["redis"]["steady"] for f in scaling.get("farms", [])
              if (f["redis"].get("steady") or {}).get("by_owner")}
    return {"campaigns": out, "capacity": capacity, "fleet": fleet(steady, capacity),
            "by_owner": by_owner(owners, capacity)}


NODES = 2  # the benchmark's farm: one fuzz worker node (c pool processes) and one collector node


def by_owner(windows: dict, capacity: dict | None) -> dict | None:
    """The steady windows' commands split by owner (``benchmarks.redis_split``): fuzzfarm's own
    per running job (the slope from 1 to 2 jobs) and per node (the rest, over the 2 nodes),
    Celery's per node (both windows run 2 nodes; unattributed connections counted as Celery's);
    then a fuzz worker process's whole traffic in a fleet of nodes of 1 and of 2 pool processes,
    and the workers one Redis at half its measured throughput serves."""
    if 1 not in windows or 2 not in windows:
        return None
    rate = {}
    for c, w in windows.items():
        calls = w["by_owner"]["calls"]
        wall = max(1e-9, w["wall_s"])
        rate[c] = {"ours": calls.get("fuzzfarm", 0) / wall,
                   "celery": (calls.get("celery/kombu", 0) + calls.get("unattributed", 0)) / wall,
                   "unattributed": calls.get("unattributed", 0) / wall,
                   "wall_s": w["wall_s"], "commands": w["by_owner"]["commands"]}
    job = rate[2]["ours"] - rate[1]["ours"]
    if job <= 0:  # noise: fall back to the 2-job window's average
        job = rate[2]["ours"] / 2
    node_ours = max(0.0, rate[1]["ours"] - job) / NODES
    node_celery = (rate[1]["celery"] + rate[2]["celery"]) / 2 / NODES
    out = {"job_ours_per_s": job, "node_ours_per_s": node_ours, "node_celery_per_s": node_celery,
           "unattributed_per_s": (rate[1]["unattributed"] + rate[2]["unattributed"]) / 2, "windows": rate,
           "per_worker_process": {}}
    for c in (1, 2):
        per = job + (node_ours + node_celery) / c
        row = {"commands_per_s": per}
        if capacity and capacity.get("available") and per > 0:
            row["workers_per_redis"] = 0.5 * capacity["mean_rps"] / per
        out["per_worker_process"][c] = row
    return out


def fleet(steady: dict, capacity: dict | None) -> dict | None:
    """Commands/s of a fleet as ``fixed + per_worker x N`` from the steady windows with 1 and 2
    fuzz worker processes (fixed: the collector and each node's Celery timers; per worker: a
    running job's stats ticks), and the N that keeps Redis at half its measured throughput."""
    if 1 not in steady or 2 not in steady:
        return None
    per = steady[2] - steady[1]
    if per <= 0:  # noise: the larger campaign sent no more; fall back to the 2-worker average
        per = steady[2] / 2
    fixed = max(0.0, steady[1] - per)
    out = {"per_worker_commands_per_s": per, "fixed_commands_per_s": fixed}
    if capacity and capacity.get("available"):
        out["workers_per_redis"] = max(0.0, 0.5 * capacity["mean_rps"] - fixed) / per
    return out


def rows(data: dict) -> list[list[str]]:
    out = []
    cap = data.get("capacity")
    for c in data["campaigns"]:
        top = ", ".join(f"{k} {v}" for k, v in c["top_commands"][:4])
        out.append([c["campaign"], "Redis commands/s per worker",
                    f"{C.fmt_num(c['commands_per_s_per_worker'])} ({C.fmt_num(c['calls'])} calls in {c['wall_s']:g} s; "
                    f"top: {top})"])
        est = c["workers_per_redis"]
        parts = []
        if "by_cpu" in est:
            parts.append(f"{C.fmt_num(est['by_cpu'])} by Redis CPU "
                         f"({1000 * c['redis_cpu_per_worker']:.2g} ms/s per worker)")
        if "by_commands" in est:
            parts.append(f"{C.fmt_num(est['by_commands'])} by commands")
        out.append([c["campaign"], "workers per Redis (at 50% of a core)", "; ".join(parts) or "-"])
    fl = data.get("fleet")
    if fl:
        line = (f"{C.fmt_num(fl['per_worker_commands_per_s'])} commands/s per running job (goal <= 10) + "
                f"{C.fmt_num(fl['fixed_commands_per_s'])} fixed (collector, Celery timers)")
        if "workers_per_redis" in fl:
            line += f"; one Redis at half its measured throughput serves {C.fmt_num(fl['workers_per_redis'])} workers"
        out.append(["fleet model (steady windows, 1 and 2 workers)", "Redis commands/s", line])
    ow = data.get("by_owner")
    if ow:
        where = "steady windows, split by MONITOR (benchmarks/redis_split.py)"
        out.append([where, "fuzzfarm's own commands/s per running job (stats ticks, lease, checks)",
                    C.fmt_num(ow["job_ours_per_s"])])
        out.append([where, "commands/s per worker node, fuzzfarm's (janitor sweeps) + Celery's (BRPOP, "
                    "heartbeat, watchdog, unacked sweep, health checks)",
                    f"{C.fmt_num(ow['node_ours_per_s'])} + {C.fmt_num(ow['node_celery_per_s'])} "
                    f"(of which {C.fmt_num(ow['unattributed_per_s'] / NODES)} from connections that sent no key)"])
        for c, row in ow["per_worker_process"].items():
            line = f"{C.fmt_num(row['commands_per_s'])} (goal <= 10)"
            if "workers_per_redis" in row:
                line += f"; one Redis at half its measured throughput serves {C.fmt_num(row['workers_per_redis'])}"
            out.append([where, f"whole commands/s per fuzz worker process, {c} process(es) per node "
                        "(its job + its share of its node)", line])
    if cap and cap.get("available"):
        out.append(["redis-server on this machine", "redis-benchmark throughput",
                    ", ".join(f"{k} {C.fmt_num(v)}/s" for k, v in cap["rps"].items())])
    return out


def run(prof: C.Profile, only=None, log=None, scaling: dict | None = None, e2e: dict | None = None) -> dict:
    t0 = time.monotonic()
    notes = []
    if scaling is None:
        from benchmarks import farm_scaling
        specs, notes = C.harnesses(only)
        scaling = farm_scaling.measure(prof, specs, log)
        notes.append("campaigns: farm_scaling's, run just before in this process")
    data = analyse(scaling, e2e)
    settings = {"snapshots": "INFO commandstats before the submit and after the campaign settled",
                "subtracted": "the benchmark's own polling commands (counted client-side)",
                "capacity": "redis-benchmark -c 10 -t set,get,hset,lpush against the same server"}
    notes.append("commands/s per worker include the collector's commands of that campaign; a fleet's Redis "
                 "also serves `fuzzfarm status` polling, not counted here")
    return C.section("redis_traffic", "Redis traffic", prof, settings, rows(data), data, notes, t0)


if __name__ == "__main__":
    raise SystemExit(C.standalone("redis_traffic", __doc__, run))
