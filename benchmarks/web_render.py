"""How long the web view takes to render its pages for a big campaign: 10,000 corpus inputs,
50 buckets (each with a real artifact and swimlanes), 8 jobs and a full time series.

    python -m benchmarks.web_render [--corpus N] [--buckets N] [--requests N] [--json]

A private redis-server is filled through the Store (the keys the farm writes), ``fuzzfarm
web`` serves it from a thread on loopback (uvicorn, as in production), and each page is
fetched ``--requests`` times over HTTP. Printed per page: the median and the slowest
wall-clock time of one request (request sent to last byte read, on this machine, with
whatever else runs on it), the page size, and how many Redis commands one render sends
(``INFO commandstats``, a figure that does not depend on the machine's load).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.request

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# A minimized reproducer of the checker's seed bug (nil cancel func: goroutine panic), taken
# from a triaged bucket; its replay gives the artifact every bucket of the benchmark carries.
CHECKER_INPUT = bytes.fromhex("010000000100")


def fill(st, *, corpus: int, buckets: int, jobs: int = 8) -> tuple[str, list[str]]:
    from fuzzfarm import collector
    out = collector.replay("checker", "buggy", CHECKER_INPUT, trace=True)
    cid = st.create_campaign({"harness": "checker", "variant": "buggy", "jobs": jobs, "duration_s": 600,
                              "strategy": "bytes", "harness_hash": "0" * 64, "version": "bench"})
    t0 = float(st.campaign(cid)["created"])
    for i in range(0, corpus, 2000):  # content-addressed: distinct inputs
        st.add_corpus("checker", [i.to_bytes(4, "big") + j.to_bytes(4, "big") + b"x" * 16
                                  for j in range(min(2000, corpus - i))])
    for n in range(jobs):
        st.update_job(n=n, cid=cid, state="done", execs_base=1_000_000, execs=0, cov=700 + n, exec_per_s=1500.0,
                      started=t0 + 1, finished=t0 + 600, worker="fuzz-bench@host")
    every = max(1.0, 600 * jobs / st.SERIES_CAP)
    for k in range(int(600 / every)):
        for n in range(jobs):
            st.record_series(cid, n, {"execs": k * 2000, "cov": 500 + k // 10}, now=t0 + k * every + n * 1e-3)
    bids = []
    for b in range(buckets):
        sig = f"bench-signature-{b:03d}"
        bid, *_ = st.create_or_join_bucket(
            harness="checker", variant="buggy", signature=sig, input_sha256=f"{b:064x}",
            fields={"kind": out["kind"], "exc_class": out.get("exc_class") or "", "crash_type": out.get("crash_type"),
                    "crash_state": out["crash_state"], "message": out.get("message") or "", "first_campaign": cid,
                    "original_size": 200, "preemptions_before": 4})
        st.update_bucket(bid, state="done", minimized_size=len(CHECKER_INPUT), preemptions_after=0, verify_ok=10,
                         verify_n=10, reproducible=True, fixed=True, fix_variant="fixed", fix_kind="")
        st.mark_intaken(cid, f"{b:064x}", bid)
        st.put_artifact(bid, collector.build_artifact(bucket=st.bucket(bid), original=CHECKER_INPUT,
                                                      minimized=CHECKER_INPUT, outcome=out, harness_hash="0" * 64,
                                                      version="bench"))
        bids.append(bid)
    return cid, bids


def _calls(r) -> int:
    return sum(int(v["calls"]) for k, v in r.info("commandstats").items())


def measure(base: str, path: str, st, n: int) -> dict:
    times, size = [], 0
    c0 = _calls(st.r)
    for _ in range(n):
        t = time.perf_counter()
        with urllib.request.urlopen(base + path, timeout=120) as resp:
            size = len(resp.read())
        times.append(time.perf_counter() - t)
    cmds = (_calls(st.r) - c0 - 1) / n  # the first INFO is counted by the second one
    return {"page": path, "median_ms": round(statistics.median(times) * 1000, 1),
            "max_ms": round(max(times) * 1000, 1), "bytes": size, "redis_commands": round(cmds)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.web_render")
    ap.add_argument("--corpus", type=int, default=10_000)
    ap.add_argument("--buckets", type=int, default=50)
    ap.add_argument("--requests", type=int, default=10)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    from fuzzfarm.farm.embedded import RedisServer, free_port
    from fuzzfarm.farm.store import Store
    from fuzzfarm.web.server import Background
    srv = RedisServer(tempfile.mkdtemp(prefix="fuzzfarm-webbench-")).start()
    try:
        st = Store(srv.url)
        t = time.perf_counter()
        cid, bids = fill(st, corpus=a.corpus, buckets=a.buckets)
        fill_s = time.perf_counter() - t
        web = Background(srv.url, "127.0.0.1", free_port()).start()
        base = web.url.rstrip("/")
        try:
            pages = ["/campaigns", "/campaigns/fragment", f"/campaign/{cid}", f"/campaign/{cid}/fragment", "/bugs",
                     "/bugs?kind=goroutine+panic", f"/bucket/{bids[0]}", f"/bucket/{bids[0]}/file/trace.json"]
            for p in pages:  # warm up (template compilation, first connections)
                urllib.request.urlopen(base + p, timeout=120).read()
            rows = [measure(base, p, st, a.requests) for p in pages]
        finally:
            web.stop()
    finally:
        srv.cleanup()
    res = {"corpus": a.corpus, "buckets": a.buckets, "requests_per_page": a.requests, "fill_s": round(fill_s, 1),
           "pages": rows}
    if a.json:
        print(json.dumps(res, indent=1))
        return 0
    print(f"web view render times: campaign with {a.corpus:,} corpus inputs, {a.buckets} buckets, 8 jobs "
          f"({a.requests} requests per page; wall-clock per request, this machine as loaded now)")
    print(f"{'page':<42} {'median ms':>10} {'max ms':>8} {'bytes':>9} {'redis cmds':>11}")
    for r in rows:
        print(f"{r['page'][:42]:<42} {r['median_ms']:>10} {r['max_ms']:>8} {r['bytes']:>9,} {r['redis_commands']:>11}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
