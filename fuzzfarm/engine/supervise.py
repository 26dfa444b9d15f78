"""Watch one fuzzer process: tail its log, pick up artifact files as they appear, enforce a
deadline, and never leave it running (its whole process group is killed on any way out); and
the loop both fuzz engines restart their child in (:func:`run_restarting`)."""

from __future__ import annotations

import collections
import hashlib
import os
import signal
import time
from typing import Callable

from fuzzfarm.harness import child as process
from .libfuzzer_output import artifact_kind, artifact_written
from .model import MAX_INPUT_BYTES, CrashReport, JobStats, StopRequested
from .redact import redact


class LogTail:
    """New complete lines of a growing log file; keeps the last ``keep`` lines."""

    def __init__(self, path: str, keep: int = 400):
        self.path = path
        self.pos = 0
        self.partial = b""
        self.recent: collections.deque[str] = collections.deque(maxlen=keep)

    def read(self, final: bool = False) -> list[str]:
        try:
            with open(self.path, "rb") as f:
                f.seek(self.pos)
                chunk = f.read()
        except FileNotFoundError:
            return []
        self.pos += len(chunk)
        buf = self.partial + chunk
        *lines, self.partial = buf.split(b"\n")
        if final and self.partial:
            lines.append(self.partial)
            self.partial = b""
        out = [ln.decode("utf-8", "replace").rstrip("\r") for ln in lines]
        self.recent.extend(out)
        return out


class ArtifactDir:
    """Artifact files (``crash-*``, ``timeout-*``, ``oom-*``, ``leak-*``) not seen before.

    A libFuzzer artifact is complete once the log says ``Test unit written to PATH`` or the
    process has exited; with ``atomic=True`` (writers that rename into place) at once.
    """

    def __init__(self, path: str, atomic: bool = False):
        self.path = path
        self.atomic = atomic
        self.seen: set[str] = set()
        self.announced: dict[str, int] = {}  # name -> order in which the log named it
        self._named = 0

    def announce(self, path: str) -> None:
        """The log said the file was (re)written: take it again even if seen (a restart that
        hits an input found before rewrites the same ``crash-<sha1>``). Files the log named
        are taken in the order it named them: the order they were found, not their names'."""
        name = os.path.basename(path)
        self._named += 1
        self.announced[name] = self._named
        self.seen.discard(name)

    def scan(self) -> list[str]:
        """Names of artifact files present now (call before reading the log: a writer logs
        about a file before it renames it into place)."""
        try:
            return sorted(n for n in os.listdir(self.path) if artifact_kind(n) is not None)
        except FileNotFoundError:
            return []

    def take(self, names: list[str], exited: bool) -> list[tuple[str, str, bytes]]:
        """``(file name, kind, data)`` of each new complete artifact among ``names``."""
        out = []
        last = float("inf")
        for name in sorted(names, key=lambda n: (self.announced.get(n, last), n)):
            if name in self.seen or not (self.atomic or exited or name in self.announced):
                continue
            full = os.path.join(self.path, name)
            self.seen.add(name)
            if os.path.getsize(full) > MAX_INPUT_BYTES:
                continue
            with open(full, "rb") as f:
                out.append((name, artifact_kind(name), f.read()))
        return out


# A crash file waits for the next poll before it is reported: half a poll on average. At 0.1 s
# that was a third of a walk child's whole start-up (~0.2 s) and decided launch -> first failure
# (benchmarks/portfolio.py: walk figures fell on 0.11 / 0.22 / 0.33 s), so the child's first
# FAST_POLL_FOR_S are polled every FAST_POLL_S. A poll is one directory scan and one log read: the
# parent used 1.6% of a core at 25 ms (0.7% at 0.1 s) over a 5 s checker walk-mix job on a loaded
# 2-core machine, CPU a long job's fuzz child would not get (farm efficiency,
# docs/BENCHMARKS.md#farm_scaling); after the first second a crash's 50 ms wait is nothing.
FAST_POLL_S = 0.025
FAST_POLL_FOR_S = 1.0
POLL_S = 0.1


def poll_interval(since_spawn_s: float, poll_s: float = POLL_S) -> float:
    """Seconds to wait before the next poll of a child spawned ``since_spawn_s`` ago."""
    return min(FAST_POLL_S, poll_s) if since_spawn_s < FAST_POLL_FOR_S else poll_s


def supervise(argv: list[str], *, env: dict, cwd: str, log_path: str, artifacts: ArtifactDir,
              deadline: float, on_line: Callable[[str], None],
              on_artifact: Callable[[str, str, bytes, LogTail], None],
              on_poll: Callable[[], None], poll_s: float = POLL_S) -> tuple[int | None, LogTail]:
    """Run ``argv`` (output to ``log_path``) until it exits or ``deadline`` (monotonic) passes,
    feeding each log line to ``on_line``, each new artifact to ``on_artifact`` as soon as it is
    complete, and calling ``on_poll`` every ``poll_s`` seconds, more often in the child's first
    second (:func:`poll_interval`), and once after the exit.
    Returns ``(exit status or None when it was killed at the deadline, log)``. Whatever happens (a callback raising, a Celery soft
    time limit), the process group is killed before this returns or raises. ``on_poll`` raising
    :class:`StopRequested` ends the run as the deadline does (killed, its last lines and artifacts
    read), then the exception is raised again."""
    tail = LogTail(log_path)
    with open(log_path, "ab") as logf:
        proc = process.spawn(argv, env=env, cwd=cwd, stdout=logf)
    spawned = time.monotonic()
    killed = False
    stop: StopRequested | None = None
    try:
        while True:
            rc = proc.poll()
            exited = rc is not None
            present = artifacts.scan()
            for line in tail.read(final=exited):
                p = artifact_written(line)
                if p:
                    artifacts.announce(p)
                on_line(line)
            if exited:  # files written between the scan and the exit
                present = artifacts.scan()
            for name, kind, data in artifacts.take(present, exited):
                on_artifact(name, kind, data, tail)
            try:
                on_poll()
            except StopRequested as e:
                if stop is None:  # end it now, as at the deadline: the loop then reads what it left
                    stop, deadline = e, 0.0
            if exited:
                if stop is not None:
                    raise stop
                return (None if killed else rc), tail
            if time.monotonic() >= deadline and not killed:
                process.kill_group(proc)
                killed = True
                continue
            time.sleep(poll_interval(time.monotonic() - spawned, poll_s))
    finally:
        if proc.poll() is None:
            process.kill_group(proc)
        else:  # the fuzzer is gone; anything it forked into its session goes with it
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def run_restarting(child, job: "JobState", artifacts: ArtifactDir, *, workdir: str, log_dir: str, name: str,
                   deadline: float, grace_s: float, min_run_s: float) -> tuple[int, bool]:
    """Run a fuzz job's child again and again (the atheris fuzzer after each crash, a walk after a
    timeout or an oom) while ``min_run_s`` of the budget (``deadline``, monotonic) is left and the
    engine asks for another. ``child`` is the engine's side: ``launch(restart, remaining) ->
    (argv, env)`` starts its next run; ``on_line`` and ``on_artifact`` read that run
    (:func:`supervise`) and keep ``child.execs`` current for the stats ticks; ``ended(rc, tail,
    stopped)`` hears how it ended (``rc`` None: killed past ``deadline + grace_s``; ``stopped``:
    a :class:`StopRequested` ended the job, ``tail`` is then None) and returns whether to run
    another. Returns ``(restarts, stopped)``."""
    restarts = -1
    while deadline - time.monotonic() >= min_run_s:
        restarts += 1
        argv, env = child.launch(restarts, deadline - time.monotonic())
        try:
            rc, tail = supervise(argv, env=env, cwd=workdir, log_path=os.path.join(log_dir, f"{name}-{restarts}.log"),
                                 artifacts=artifacts, deadline=deadline + grace_s, on_line=child.on_line,
                                 on_artifact=child.on_artifact, on_poll=lambda: job.tick(child.execs))
        except StopRequested:  # the child is gone (supervise kills it on any way out); keep what it did
            child.ended(None, None, stopped=True)
            return max(restarts, 0), True
        if not child.ended(rc, tail, stopped=False):
            break
    return max(restarts, 0), False


class JobState:
    """What a job has reported so far, across fuzzer restarts: crashes (each distinct input
    once), stats with exec/s computed as execs / elapsed (docs/TRAPS.md#g6), sent about every ``interval_s``
    seconds of the *job*: the cadence survives fuzzer restarts, so a job whose fuzzer restarts
    after every crash (each run shorter than the interval) still streams its stats."""

    def __init__(self, on_crash: Callable, on_stats: Callable | None, corpus_size: int = 0,
                 interval_s: float = 1.0):
        self.start = time.monotonic()
        self.interval_s = interval_s
        self.next_tick = self.start + interval_s
        self.on_crash = on_crash
        self.on_stats = on_stats
        self.stats = JobStats(corpus_size=corpus_size)
        self.reported: set[str] = set()
        self.prior_execs = 0  # execs of finished fuzzer runs

    def report(self, data: bytes, kind: str, log_tail: str, signature: str = "") -> None:
        key = hashlib.sha1(data).hexdigest()
        if key in self.reported:
            return
        self.reported.add(key)
        self.stats.crashes += 1
        self.on_crash(CrashReport(data=data, artifact=kind, log_tail=redact(log_tail),
                                  signature=signature if kind == "crash" else ""))

    def snapshot(self, current_execs: int = 0) -> JobStats:
        s = self.stats
        s.execs = self.prior_execs + current_execs
        s.elapsed_s = round(time.monotonic() - self.start, 3)
        s.exec_per_s = round(s.execs / s.elapsed_s, 1) if s.elapsed_s > 0 else 0.0
        return JobStats(**s.to_json())

    def tick(self, current_execs: int = 0) -> None:
        """Send a stats snapshot if ``interval_s`` has passed since the last one."""
        now = time.monotonic()
        if now < self.next_tick:
            return
        self.next_tick = now + self.interval_s
        snap = self.snapshot(current_execs)
        if self.on_stats is not None:
            self.on_stats(snap)

    def run_ended(self, execs: int) -> None:
        self.prior_execs += execs

    def final(self) -> JobStats:
        """The job's last stats, sent once more: the figures the job ends with."""
        snap = self.snapshot()
        if self.on_stats is not None:
            self.on_stats(snap)
        return snap
