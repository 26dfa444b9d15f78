"""Redis growth per campaign: keys, keys without a TTL and memory a finished campaign leaves,
then after the settled campaigns got their TTL (``FUZZFARM_CAMPAIGN_TTL_S``, applied by the
workers' janitor once a minute; applied here at once) and after ``fuzzfarm gc --older-than 0``.

    python -m benchmarks.redis_growth [--campaigns 4] [--json]

A private farm (redis-server, one fuzz and one collect worker process); each campaign is the
registered ``checker`` harness, buggy variant, 1 job of 3 s (crashes, intake, a bucket, its
minimization, verification and artifact), with short triage budgets. Figures count keys under
``fuzzfarm:`` (Celery's own few keys are listed apart) and Redis's ``used_memory``.
"""

from __future__ import annotations

import argparse
import json
import time

from benchmarks import farmkit

ENV = {"FUZZFARM_MINIMIZE_BUDGET_S": "5", "FUZZFARM_VERIFY_RUNS": "3", "FUZZFARM_FIX_RANDOM_RUNS": "10",
       "FUZZFARM_FIX_PCT_RUNS": "10", "FUZZFARM_FIX_BUDGET_S": "5", "FUZZFARM_MAX_SLICE_S": "3"}


def census(r) -> dict:
    ours = [k for k in r.scan_iter(match="fuzzfarm:*", count=1000)]
    pipe = r.pipeline(transaction=False)
    for k in ours:
        pipe.ttl(k)
    ttls = pipe.execute() if ours else []
    other = [k for k in r.scan_iter(count=1000) if not k.startswith("fuzzfarm:")]
    kinds: dict[str, int] = {}
    for k, t in zip(ours, ttls):
        if t < 0:
            kind = k.split(":")[1]
            kinds[kind] = kinds.get(kind, 0) + 1
    return {"keys": len(ours), "no_ttl": sum(1 for t in ttls if t < 0), "no_ttl_by_kind": kinds,
            "other_keys": len(other), "used_memory": int(r.info("memory")["used_memory"])}


def run(campaigns: int = 4) -> dict:
    from fuzzfarm.farm.store import retention

    with farmkit.FarmRun(fuzz_concurrency=1, worker_env=ENV, harness_paths=[]) as fr:
        st = fr.store()
        base = census(st.r)
        cids = []
        t0 = time.monotonic()
        for _ in range(campaigns):
            cid, _ = fr.submit("checker", "buggy", 1, 3, "bytes")
            cids.append(cid)
            deadline = time.monotonic() + 300
            while not fr.settled(st, cid) and time.monotonic() < deadline:
                time.sleep(0.5)
        wall = time.monotonic() - t0
        settled = sum(1 for c in cids if fr.settled(st, c))
        finished = census(st.r)
        retention.expire_settled(st, force=True)
        with_ttl = census(st.r)
        rc, out, err = fr.cli("gc", "--older-than", "0", "--json")
        after_gc = census(st.r)
        buckets = int(st.r.zcard("fuzzfarm:buckets"))

    def per(a, b, f):
        return (b[f] - a[f]) / max(1, campaigns)

    return {"campaigns": campaigns, "settled": settled, "wall_s": round(wall, 1), "buckets": buckets,
            "baseline": base, "finished": finished, "after_ttl": with_ttl, "after_gc": after_gc, "gc_rc": rc,
            "per_campaign": {"keys": per(base, finished, "keys"), "no_ttl": per(base, finished, "no_ttl"),
                             "bytes": per(base, finished, "used_memory"),
                             "no_ttl_after_ttl": per(base, with_ttl, "no_ttl"),
                             "keys_after_gc": per(base, after_gc, "keys"),
                             "bytes_after_gc": per(base, after_gc, "used_memory")}}


def lines(d: dict) -> list[str]:
    p = d["per_campaign"]
    return [f"redis growth: {d['campaigns']} campaigns ({d['settled']} settled, {d['buckets']} bucket(s), "
            f"{d['wall_s']} s)",
            f"  per finished campaign: +{p['keys']:.1f} keys, +{p['no_ttl']:.1f} without a TTL, "
            f"+{p['bytes'] / 1024:.1f} KiB used_memory",
            f"  after the settled campaigns' TTL: +{p['no_ttl_after_ttl']:.1f} keys without a TTL per campaign "
            f"(left without one: {d['after_ttl']['no_ttl_by_kind']})",
            f"  after `fuzzfarm gc --older-than 0` (exit {d['gc_rc']}): +{p['keys_after_gc']:.1f} keys, "
            f"+{p['bytes_after_gc'] / 1024:.1f} KiB per campaign (kept: {d['after_gc']['no_ttl_by_kind']})"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--campaigns", type=int, default=4)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    d = run(a.campaigns)
    print(json.dumps(d, indent=1) if a.json else "\n".join(lines(d)))


if __name__ == "__main__":
    main()
