"""Run campaigns on a private farm and account for what they cost: the embedded launcher
(``fuzzfarm.farm.embedded.Farm``: redis-server + Celery worker processes), the ``fuzzfarm``
CLI for submit / download / replay (the user's path), CPU seconds per process category
(``common.CPUSampler``), and Redis ``INFO commandstats`` deltas with the benchmark's own
commands subtracted (counted by :class:`CountingRedis`)."""

from __future__ import annotations

import collections
import json
import os
import shutil
import subprocess
import tempfile
import time

import redis

from benchmarks import common as C

FUZZFARM = os.path.join(os.path.dirname(C.PY), "fuzzfarm")

CAT_TARGET = "fuzz target (atheris / walk)"
CAT_MERGE = "corpus merge (libFuzzer -merge)"
CAT_MERGE_ON_FUZZ = "corpus merge on the fuzz worker"  # where the farm ran it before it became a collector task
CAT_FUZZ_WORKER = "celery fuzz worker (+ corpus sync, stats)"
CAT_COLLECT = "collector (celery + triage replays)"
CAT_REDIS = "redis-server"
OUTSIDE = (CAT_MERGE, CAT_MERGE_ON_FUZZ, CAT_FUZZ_WORKER, CAT_COLLECT, CAT_REDIS)


class CountingRedis(redis.Redis):
    """A redis-py client that counts the commands it sends, by commandstats name."""

    def __init__(self, *a, **kw):
        kw.setdefault("health_check_interval", 0)
        super().__init__(*a, **kw)
        self.counts: collections.Counter = collections.Counter()

    def execute_command(self, *args, **options):
        self.counts[str(args[0]).lower()] += 1
        return super().execute_command(*args, **options)

    def pipeline(self, transaction=True, shard_hint=None):
        p = super().pipeline(transaction, shard_hint)
        counts, orig = self.counts, p.execute

        def execute(raise_on_error=True):
            for args, _ in p.command_stack:
                counts[str(args[0]).lower()] += 1
            if p.transaction and p.command_stack:
                counts["multi"] += 1
                counts["exec"] += 1
            return orig(raise_on_error)

        p.execute = execute
        return p


def classifier(harness_paths: list[str]):
    def classify(cmdline: str, parent: str) -> str:
        if parent in (CAT_MERGE, CAT_MERGE_ON_FUZZ, CAT_REDIS):
            return parent
        harness = any(p in cmdline for p in harness_paths)
        if harness and "-merge=1" in cmdline:  # a corpus merge wherever it runs (the collector's task)
            return CAT_MERGE_ON_FUZZ if parent == CAT_FUZZ_WORKER else CAT_MERGE
        if parent == CAT_COLLECT:
            return parent
        return CAT_TARGET if harness or "fuzzfarm.engine.walk" in cmdline else parent
    return classify


def commandstats(r: redis.Redis) -> dict[str, dict]:
    """``INFO commandstats`` as {command: {"calls", "usec"}}."""
    raw = r.info("commandstats")
    out = {}
    for k, v in raw.items():
        name = k[len("cmdstat_"):] if k.startswith("cmdstat_") else k
        out[name] = {"calls": int(v.get("calls", 0)), "usec": int(v.get("usec", 0))}
    return out


def stats_delta(before: dict, after: dict, own: collections.Counter) -> dict[str, dict]:
    """Per-command calls / usec between two snapshots, minus the benchmark's own commands
    (``own``; its usec is removed pro rata)."""
    out = {}
    for name, a in after.items():
        b = before.get(name, {"calls": 0, "usec": 0})
        calls = a["calls"] - b["calls"]
        usec = a["usec"] - b["usec"]
        mine = own.get(name, 0) + (1 if name == "info" else 0)  # the closing INFO itself
        if calls > 0:
            keep = max(0, calls - mine)
            out[name] = {"calls": keep, "usec": round(usec * keep / calls)}
    return {k: v for k, v in out.items() if v["calls"] > 0}


class FarmRun:
    """A private farm (``fuzz_concurrency`` fuzz pool processes, one collector process) with
    CPU sampling of every process it starts."""

    def __init__(self, *, fuzz_concurrency: int, collect_concurrency: int = 1, worker_env: dict | None = None,
                 harness_paths: list[str]):
        from fuzzfarm.farm.embedded import Farm
        self.workdir = tempfile.mkdtemp(prefix="fuzzfarm-bench-farm-")
        self.farm = Farm(workdir=self.workdir, fuzz_concurrency=fuzz_concurrency,
                         collect_concurrency=collect_concurrency, worker_env=worker_env or {})
        self.harness_paths = harness_paths
        self.client: CountingRedis | None = None
        self.sampler: C.CPUSampler | None = None
        self.started_s = 0.0

    def __enter__(self) -> "FarmRun":
        t0 = time.monotonic()
        self.farm.start()
        self.started_s = time.monotonic() - t0
        self.client = CountingRedis.from_url(self.farm.url, decode_responses=True, socket_timeout=30)
        fuzz_w = next(w for w in self.farm.workers if "fuzz" in w.queues)
        coll_w = next(w for w in self.farm.workers if "collect" in w.queues)
        roots = {self.farm.redis.proc.pid: CAT_REDIS, fuzz_w.proc.pid: CAT_FUZZ_WORKER, coll_w.proc.pid: CAT_COLLECT}
        self.sampler = C.CPUSampler(roots, classifier(self.harness_paths), interval=0.2)
        return self

    def __exit__(self, *exc) -> None:
        if self.sampler is not None and self.sampler._th is not None and not self.sampler._stop.is_set():
            self.sampler.stop()
        if self.client is not None:
            self.client.close()
        self.farm.cleanup()
        keep = os.environ.get("FUZZFARM_BENCH_KEEP_LOGS")  # a directory: the workers' logs go there
        if keep:
            dest = os.path.join(keep, os.path.basename(self.workdir))
            os.makedirs(dest, exist_ok=True)
            for root, _dirs, files in os.walk(self.workdir):
                for f in files:
                    if f.endswith(".log"):
                        shutil.copy(os.path.join(root, f), dest)
        shutil.rmtree(self.workdir, ignore_errors=True)

    @property
    def url(self) -> str:
        return self.farm.url

    def store(self):
        from fuzzfarm.farm.store import Store
        return Store(self.farm.url, client=self.client)

    def cli(self, *args: str, timeout: float = 120) -> tuple[int, str, str]:
        """Run ``fuzzfarm --redis URL ARGS`` (the user's command); (rc, stdout, stderr)."""
        env = {**os.environ, "FUZZFARM_REDIS_URL": self.farm.url}
        p = subprocess.run([FUZZFARM, *args], capture_output=True, text=True, timeout=timeout, env=env, cwd=C.ROOT)
        return p.returncode, p.stdout, p.stderr

    def submit(self, harness: str, variant: str, jobs: int, duration_s: float, strategy: str) -> tuple[str, float]:
        """Submit through the CLI; returns (campaign id, seconds the command took)."""
        t0 = time.monotonic()
        pin = [] if strategy.startswith("(") else ["--strategy", strategy]  # "(farm default)": no --strategy
        rc, out, err = self.cli("submit", harness, "--variant", variant, "--jobs", str(jobs), "--duration",
                                f"{duration_s:g}", *pin, "--json")
        if rc != 0:
            raise RuntimeError(f"fuzzfarm submit failed ({rc}): {err.strip() or out.strip()}")
        return json.loads(out)["campaign"], time.monotonic() - t0

    def drained(self) -> bool:
        """No task message waiting or in flight on either queue (the corpus merge a campaign's
        end enqueued has run: its CPU is in the figures)."""
        r = self.client
        lists = [k for q in ("fuzz", "collect") for k in r.scan_iter(match=q + "*")
                 if (k == q or k.startswith(q + "\x06\x16")) and r.type(k) == "list"]
        return sum(r.llen(k) for k in lists) == 0 and r.hlen("unacked") == 0

    def settled(self, st, cid: str) -> bool:
        s = st.campaign_summary(cid)
        return bool(s and s["settled"])


def cpu_summary(totals: dict[str, float]) -> dict:
    total = sum(totals.values())
    target = totals.get(CAT_TARGET, 0.0)
    return {"by_category_s": totals, "total_s": round(total, 2), "target_s": round(target, 2),
            "outside_share": (total - target) / total if total > 0 else None}
