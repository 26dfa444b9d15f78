"""The ``random`` / ``pct`` / ``pct:D`` / ``walk-mix`` fuzz job: a seeded walk over schedules
instead of libFuzzer.

Child process (what the job runs; one per (re)start)::

    python -m fuzzfarm.engine.walk HARNESS VARIANT --strategy=random|pct|pct:D|walk-mix --seed=N --restart=R
           --max-time=S --artifacts=DIR [--timeout=S] [--per-signature=K] [--module=MOD] [--prior=JSON]
           [--repeat-schedules] [--runs=N]

A run whose (scenario, decisions) this process already ran is counted once (stat
``distinct``) and not handled again; by default the strategy is also steered away from such
runs before they happen (``strategies/novelty.py``, docs/STRATEGIES.md#distinct-schedules).

Each run draws event bytes from ``random.Random`` seeded by (seed, restart) and lets the
strategy (seeded likewise, living across runs) drive the schedule through
``harness.schedule_from``. A failing run becomes a bytes reproducer,
``Execution.as_bytes_input(data)``; it is replayed once under the bytes strategy and written
as ``crash-<sha1>`` only if it gives the same signature, at most ``per-signature`` inputs per
signature (the rest are counted, not reported). A run that exceeds ``--timeout`` wall seconds
writes ``timeout-<sha1>`` (its event bytes) and one that runs out of memory ``oom-<sha1>``;
both end the process (exit 70 / 71, as libFuzzer does) and the job restarts it. Stats go to
stdout as JSON lines. Nothing a schedule depends on reads the wall clock.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import time

from .guard import RunTimeout, skip_instrumentation, timed_out, wall_limit

RC_TIMEOUT, RC_OOM = 70, 71
EVENT_LENGTHS = (0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)


def _write_atomic(directory: str, kind: str, data: bytes) -> str:
    name = f"{kind}-{hashlib.sha1(data).hexdigest()}"
    path = os.path.join(directory, name)
    tmp = os.path.join(directory, f".{name}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return path


def walk(mod, variant: str, strategy: str, *, seed: int, restart: int, max_time: float, out_dir: str,
         timeout_s: float, per_signature: int, emit, prior: dict | None = None, fresh: bool = True,
         max_runs: int = 0) -> int:
    """The walk loop; returns the process exit code. ``fresh``: never re-run a schedule this
    process already ran (strategies/novelty.py); ``prior``: arm counts for ``walk-mix``;
    ``max_runs``: stop after that many runs too (0: only ``max_time`` ends the walk)."""
    from fuzzfarm import harness as H
    from fuzzfarm.strategies import make
    from fuzzfarm.strategies.novelty import FreshSchedules, SeenSchedules

    H.check_variant(mod, variant)
    run_seed = seed * 1_000_003 + restart
    mix = strategy == "walk-mix"
    strat = make("mix", seed=run_seed, prior=prior) if mix else make(strategy, seed=run_seed)
    if fresh:
        strat = FreshSchedules(strat, run_seed)
    seen = SeenSchedules()
    failures_seen: set = set()  # (kind, exc class, crash state) of the failures this process met
    events = random.Random(f"events:{run_seed}")
    counts: dict[str, int] = {}
    stats = {"execs": 0, "crashes": 0, "unreplayable": 0, "distinct": 0}
    start = time.monotonic()
    next_emit = start + 0.5

    def progress():
        if mix:
            inner = strat.inner if fresh else strat
            stats["arms"] = inner.stats
            stats["weights"] = inner.weights()
        return stats

    while True:
        now = time.monotonic()
        if now >= next_emit:
            emit(progress())
            next_emit = now + 0.5
        if now - start >= max_time or (max_runs and stats["execs"] >= max_runs):
            break
        data = events.randbytes(events.choice(EVENT_LENGTHS))
        stats["execs"] += 1
        try:
            with wall_limit(timeout_s), H.schedule_from(strat):
                ex = mod.execute(data, variant)
            if timed_out(ex):
                raise RunTimeout()
            if ex.failure is not None and isinstance(ex.failure.cause, MemoryError):
                raise MemoryError()
        except RunTimeout:
            return _fatal(out_dir, "timeout", data, stats, emit)
        except MemoryError:
            return _fatal(out_dir, "oom", data, stats, emit)
        except Exception:  # noqa: BLE001 - the harness's own decoding failed: a finding
            ex = None
        if fresh:
            strat.finish()
        new_schedule = True
        if ex is not None:
            rec = bytes(getattr(ex.schedule, "recorded", b""))
            new_schedule = seen.add(data[:ex.schedule_start] + data[ex.schedule_end:], rec)
            stats["distinct"] += new_schedule
            if mix:
                f = ex.failure
                key = None if f is None else (f.kind, f.exc_class, tuple(f.crash_state))
                found = key is not None and key not in failures_seen
                if found:
                    failures_seen.add(key)
                (strat.inner if fresh else strat).reward(int(found), len(rec))
        elif mix:  # the harness's decoding failed (reported below): the arm still ran
            (strat.inner if fresh else strat).reward(0, 0)
        if ex is not None and ex.failure is None:
            continue
        if not new_schedule:  # the same run as one handled before: its failure was handled then
            continue
        repro = data if ex is None else ex.as_bytes_input(data)
        # Imported at the first failure: the collector package and runone are crash handling,
        # not needed to start walking (docs/BENCHMARKS.md#startup).
        from fuzzfarm.harness.signature import engine_signature, signature_of
        from fuzzfarm.harness.runone import outcome_of_module

        # The reproducer must give the same signature under the bytes strategy.
        try:
            with wall_limit(timeout_s):
                replay = outcome_of_module(mod, mod.NAME, variant, repro)
        except RunTimeout:
            replay = {}
        sig = signature_of(replay)
        if sig is None or (ex is not None and sig != signature_of(
                {"failed": True, "kind": ex.failure.kind, "exc_class": ex.failure.exc_class,
                 "crash_state": ex.failure.crash_state})):
            stats["unreplayable"] += 1
            continue
        stats["crashes"] += 1
        if counts.get(sig, 0) < per_signature:
            counts[sig] = counts.get(sig, 0) + 1
            # "signature": the bucket signature a collector replay gives it (the one just run, in
            # the collector's classification: a MemoryError / RunTimeout is folded, so none is said)
            said = engine_signature(replay)
            emit({"artifact": f"crash-{hashlib.sha1(repro).hexdigest()}", "failure": replay["message"],
                  "kind": replay["kind"], "crash_state": replay["crash_state"],
                  **({"signature": said} if said else {})})
            _write_atomic(out_dir, "crash", repro)
    emit({**progress(), "done": True})
    return 0


def _fatal(out_dir: str, kind: str, data: bytes, stats: dict, emit) -> int:
    _write_atomic(out_dir, kind, data)
    emit({**stats, "artifact": kind})
    return RC_TIMEOUT if kind == "timeout" else RC_OOM


def _formatter(prog: str) -> argparse.HelpFormatter:
    # A set width: argparse's default asks shutil for the terminal's, and importing shutil (with
    # bz2, lzma, zlib, fnmatch) is a start-up cost of every walk child, whose stdout is a pipe.
    return argparse.HelpFormatter(prog, width=100)


def main(argv: list[str] | None = None) -> int:
    # Before anything imports dataclasses (the harness, the runtime, the ports): see lazy_stdlib.
    from .lazy_stdlib import defer

    defer("inspect")
    ap = argparse.ArgumentParser(prog="python -m fuzzfarm.engine.walk", formatter_class=_formatter)
    ap.add_argument("harness")
    ap.add_argument("variant")
    ap.add_argument("--strategy", required=True, help="random | pct | pct:DEPTH | walk-mix")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--restart", type=int, default=0)
    ap.add_argument("--max-time", type=float, required=True)
    ap.add_argument("--artifacts", required=True)
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--per-signature", type=int, default=3)
    ap.add_argument("--rss-limit-mb", type=int, default=0)
    ap.add_argument("--module")
    ap.add_argument("--prior", default="", help="walk-mix: the campaign's arm counts so far (JSON)")
    ap.add_argument("--repeat-schedules", action="store_true",
                    help="do not skip schedules already run (benchmarks compare both)")
    ap.add_argument("--runs", type=int, default=0,
                    help="stop after N runs as well (0: no limit; libFuzzer's -runs, e.g. for benchmarks/startup.py)")
    a = ap.parse_args(argv)
    from fuzzfarm.engine import known_strategy

    if not known_strategy(a.strategy) or a.strategy == "bytes":
        ap.error(f"--strategy {a.strategy!r}: choose random, pct, pct:DEPTH or walk-mix")
    if a.runs < 0:
        ap.error(f"--runs {a.runs}: give a number of runs >= 0 (0: no limit)")
    try:
        prior = json.loads(a.prior) if a.prior else None
    except ValueError:
        ap.error("--prior is not JSON")
    if a.rss_limit_mb > 0:  # heap growth past the limit raises MemoryError -> an oom artifact
        import resource

        limit = a.rss_limit_mb << 20
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    skip_instrumentation()
    from fuzzfarm.harness import HarnessError

    from fuzzfarm.harness.target import from_child_args

    def emit(obj):
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    try:
        mod = from_child_args(a.harness, a.module).load()
        return walk(mod, a.variant, a.strategy, seed=a.seed, restart=a.restart, max_time=a.max_time,
                    out_dir=a.artifacts, timeout_s=a.timeout, per_signature=a.per_signature, emit=emit,
                    prior=prior, fresh=not a.repeat_schedules, max_runs=a.runs)
    except HarnessError as e:
        sys.stderr.write(f"fuzzfarm: {e}\n")
        return 2


class _Walks:
    """The job's side of its walk children (``supervise.run_restarting``): each one's command line,
    what it prints, and after each whether the next one starts (after a timeout or an oom)."""

    def __init__(self, target, variant: str, strategy: str, job, artifacts, *, seed: int, timeout_s: int,
                 rss_limit_mb: int, art_dir: str, prior: dict | None):
        self.target, self.variant, self.strategy, self.seed, self.prior = target, variant, strategy, seed, prior
        self.job, self.artifacts, self.art_dir = job, artifacts, art_dir
        self.timeout_s, self.rss_limit_mb = timeout_s, rss_limit_mb
        self.env = target.child_env({"FUZZFARM_VARIANT": variant})
        self.walked: dict = {"distinct": 0, "arms": {}}  # summed over the (re)starts: each has its own strategy
        self.error: str | None = None
        self.restart, self.execs, self.last = 0, 0, {}
        self.said_sig: dict[str, str] = {}  # artifact name -> the bucket signature the walk said of it

    def launch(self, restart: int, remaining: float) -> tuple[list[str], dict]:
        self.restart, self.execs, self.last, self.said_sig = restart, 0, {}, {}
        prior = [f"--prior={json.dumps(self.prior, sort_keys=True)}"] if self.prior else []
        argv = [sys.executable, "-m", "fuzzfarm.engine.walk", self.target.name, self.variant,
                f"--strategy={self.strategy}", f"--seed={self.seed}", f"--restart={restart}",
                f"--max-time={remaining:.3f}", f"--artifacts={self.art_dir}", f"--timeout={self.timeout_s}",
                f"--rss-limit-mb={self.rss_limit_mb}", *prior, *self.target.child_args()]
        return argv, self.env

    def on_line(self, line: str) -> None:
        if line.startswith("{"):
            try:
                obj = json.loads(line)
                self.execs = int(obj.get("execs", self.execs))
            except (ValueError, AttributeError):
                return
            if "distinct" in obj:
                self.last = obj
            if isinstance(obj.get("artifact"), str) and obj["artifact"].startswith("crash-"):
                self.artifacts.announce(obj["artifact"])  # report in the walk's order
                if isinstance(obj.get("signature"), str):
                    self.said_sig[obj["artifact"]] = obj["signature"]

    def on_artifact(self, name, kind, data, tail) -> None:
        said = [ln for ln in tail.recent if name in ln]
        self.job.report(data, kind, f"{self.strategy} walk (seed {self.seed}, restart {self.restart}) found {name}\n"
                        + "\n".join(said[-1:]), signature=self.said_sig.pop(os.path.basename(name), ""))

    def ended(self, rc: int | None, tail, stopped: bool) -> bool:
        """Count the walk's execs and arms; whether the next one starts."""
        from .libfuzzer_output import last_error_line

        self.job.run_ended(self.execs)
        self.walked["distinct"] += int(self.last.get("distinct", 0) or 0)
        for arm, c in (self.last.get("arms") or {}).items():
            tot = self.walked["arms"].setdefault(arm, {"runs": 0, "finds": 0, "cost": 0})
            for f in tot:
                tot[f] += int(c.get(f, 0) or 0)
        if stopped:
            return False
        if rc in (RC_TIMEOUT, RC_OOM):
            return True
        if rc not in (0, None):
            self.error = (f"the {self.strategy} walk for harness {self.target.name!r} exited with code {rc}: "
                          f"{last_error_line(list(tail.recent))}")
        return False


def run_walk_job(target, variant: str, strategy: str, *, seed: int, duration_s: float, corpus: list[bytes],
                 workdir: str, on_crash, on_stats, timeout_s: int, rss_limit_mb: int, stats_interval_s: float,
                 prior: dict | None = None):
    """Parent side: run the walk child, restarting it after a timeout/oom until the budget is
    spent. ``corpus`` is not used by walks (their inputs come from the seed); no new corpus."""
    from .model import JobResult
    from .supervise import ArtifactDir, JobState, run_restarting

    deadline = time.monotonic() + duration_s
    art_dir, log_dir = os.path.join(workdir, "artifacts"), os.path.join(workdir, "logs")
    os.makedirs(art_dir, exist_ok=True)
    os.makedirs(log_dir, exist_ok=True)
    job = JobState(on_crash, on_stats, interval_s=stats_interval_s)
    artifacts = ArtifactDir(art_dir, atomic=True)
    walks = _Walks(target, variant, strategy, job, artifacts, seed=seed, timeout_s=timeout_s,
                   rss_limit_mb=rss_limit_mb, art_dir=art_dir, prior=prior)
    restarts, stopped = run_restarting(walks, job, artifacts, workdir=workdir, log_dir=log_dir, name="walk",
                                       deadline=deadline, grace_s=2 * timeout_s + 5, min_run_s=0.5)
    final = job.final()
    return JobResult(stats=final, new_corpus=[], crashes=final.crashes, restarts=restarts, error=walks.error,
                     stopped=stopped, walk=walks.walked)


if __name__ == "__main__":
    raise SystemExit(main())
