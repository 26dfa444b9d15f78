"""Exhaustive search (``dfs``) figures: ``python -m benchmarks.dfs_bench [--cap S] [--no-farm]``.

Prints, at preemption bound 2: for each toy fixed form (late_cancel, shared_map n=2 and n=4)
and each ``examples`` fixed case, the distinct schedules explored to exhaust it with the
reduction and without (their ratio is the reduction), runs executed, seconds and distinct
schedules per second, or "not exhausted in CAP s"; for each buggy form, the seconds and
schedules to the first counterexample and its preemptions; and the farm speed-up of a
distributed search with 1 vs 2 fuzz workers on one scenario (same machine, same run).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def _examples(case: str):
    os.environ["FUZZFARM_EXAMPLE"] = case
    import harnesses.examples_race as ex
    return importlib.reload(ex)


def targets():
    from benchmarks.toys import late_cancel, shared_map
    from fuzzfarm.examples import CASE_NAMES

    yield "late_cancel", late_cancel, b""
    yield "shared_map n=2", shared_map, b""
    yield "shared_map n=4", shared_map, b"\x02"
    for name in CASE_NAMES:
        yield name.split("_", 1)[0], (lambda n=name: _examples(n)), b""


def _fmt(r, cap):
    if r.exhausted:
        rate = r.schedules / r.elapsed_s if r.elapsed_s else float("inf")
        return f"{r.schedules:>7,} schedules ({r.runs:,} runs) in {r.elapsed_s:6.1f} s, {rate:6.0f} schedules/s"
    return f"not exhausted in {cap:g} s ({r.schedules:,} schedules, {r.runs:,} runs, proven up to {r.proven_bound})"


def local_figures(cap: float, plain: bool) -> None:
    from fuzzfarm.engine.explore import explore

    print(f"== exhaust fixed forms at bound 2 (cap {cap:g} s each) ==")
    for label, mod, data in targets():
        mod = mod() if callable(mod) and not hasattr(mod, "execute") else mod
        red = explore(mod, "fixed", data, bound=2, max_time=cap)
        line = f"{label:<16} reduced: {_fmt(red, cap)}"
        if plain:
            pl = explore(mod, "fixed", data, bound=2, max_time=cap, reduce=False)
            line += f"\n{'':<16} plain:   {_fmt(pl, cap)}"
            if red.exhausted and pl.exhausted:
                line += (f"\n{'':<16} reduction: {red.schedules / pl.schedules:.3f} of the schedules, "
                         f"{red.runs / pl.runs:.3f} of the runs")
        print(line, flush=True)
    print("== time to the first counterexample on the buggy forms (bound 2) ==")
    for label, mod, data in targets():
        mod = mod() if callable(mod) and not hasattr(mod, "execute") else mod
        r = explore(mod, "buggy", data, bound=2, max_time=cap)
        if r.failure:
            print(f"{label:<16} {r.elapsed_s:6.2f} s, {r.schedules:>5} schedules, {r.failure['preemptions']} "
                  f"preemption(s): {r.failure['kind']}", flush=True)
        else:
            print(f"{label:<16} none found: {r.verdict()}", flush=True)


def farm_figures() -> None:
    from fuzzfarm.farm import configure, explore_jobs
    from fuzzfarm.farm.embedded import RedisServer, Worker
    from fuzzfarm.farm.explore_tasks import submit
    from fuzzfarm.farm.store import Store

    data = b"\x02"  # examples case hc04 (the last byte picks the case)
    print("== farm: distributed dfs of examples hc04/fixed, bound 2, 1 vs 2 fuzz workers ==")
    with tempfile.TemporaryDirectory() as tmp, RedisServer(tmp) as srv:
        st = Store(srv.url)
        configure(srv.url)
        times = {}
        for n in (1, 2):
            st.r.flushdb()
            ws = [Worker(srv.url, ["fuzz"], concurrency=1, logfile=os.path.join(tmp, f"w{n}{i}.log"),
                         env={"FUZZFARM_DFS_SUBTREE_RUNS": "200"}) for i in range(n)]
            for w in ws:
                w.start()
            for w in ws:
                w.wait_ready()
            t0 = time.monotonic()
            eid = submit(st, {"harness": "examples", "variant": "fixed", "bound": 2, "reduce": True,
                              "all_failures": False}, data)
            while not (s := explore_jobs.summary(st, eid))["settled"]:
                time.sleep(0.2)
            times[n] = time.monotonic() - t0
            for w in ws:
                w.stop()
            print(f"{n} worker(s): {times[n]:6.1f} s, {s['schedules']:,} schedules, {s['runs']:,} runs, "
                  f"{s['subtrees_done']} subtrees: {s['line']}", flush=True)
        print(f"speed-up 2 vs 1 workers: {times[1] / times[2]:.2f}x")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.dfs_bench")
    ap.add_argument("--cap", type=float, default=60.0, help="seconds per search")
    ap.add_argument("--no-plain", action="store_true", help="skip the searches without reduction")
    ap.add_argument("--no-farm", action="store_true")
    ap.add_argument("--farm-only", action="store_true")
    a = ap.parse_args(argv)
    from fuzzfarm.engine.guard import skip_instrumentation
    skip_instrumentation()
    if not a.farm_only:
        local_figures(a.cap, not a.no_plain)
    if not a.no_farm:
        farm_figures()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
