"""The ``bytes`` fuzz job: atheris (libFuzzer) on the harness file, restarted after every crash
until the time budget is spent.

One fuzzer process at a time (``atheris.Fuzz`` never returns and one per process,
docs/TRAPS.md#g7), started as ``python /abs/harness.py -flags... CORPUS_DIR``; the harness's
``atheris_main`` gives libFuzzer a re-runnable argv[0] (docs/TRAPS.md#g1). Every flag that has
a dangerous default is explicit: ``-timeout`` (default 1200 s, docs/TRAPS.md#g23),
``-rss_limit_mb``, ``-artifact_prefix`` into a directory made beforehand (docs/TRAPS.md#g9),
``-max_total_time`` = the remaining budget (0 would mean forever).
libFuzzer stops at the first crash, so the job restarts it on the grown corpus with
the next seed; each crash is reported as soon as its artifact file is complete. A restarted
fuzzer tolerates the failures this job already crashed on (the harness announces each one as
``fuzzfarm: failing SIGNATURE``; ``FUZZFARM_TOLERATE``, see ``fuzzfarm.harness``), so the budget
goes to looking for other bugs instead of restarting on the same one: the seed bugs are found in
tens of runs, and a restart costs as much as hundreds of runs.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import time
from typing import Callable

from fuzzfarm.harness import FAILING_LINE, SIGNATURE_LINE, TOLERATE_ENV

from fuzzfarm.harness import child as process
from .corpus import read_inputs, sha1, write_inputs
from .libfuzzer_output import (BANNER, NOT_INSTRUMENTED, crash_excerpt, last_error_line, parse_final_execs,
                               parse_status)
from .model import CrashReport, JobResult, JobStats, StopRequested
from .redact import redact
from .supervise import ArtifactDir, JobState, supervise
from fuzzfarm.harness.target import Target

log = logging.getLogger(__name__)

MIN_RUN_S = 1.0  # don't start a fuzzer for less than this (startup alone takes ~0.5 s)
MAX_INIT_CRASHES = 2  # restarts that crash before fuzzing starts: then the job stops


def run_seed(seed: int, restart: int) -> int:
    """libFuzzer seed of the ``restart``-th run of job ``seed``: deterministic, never 0 (which
    would make libFuzzer pick a random one), and apart from other jobs' seeds."""
    return (seed * 1_000_003 + restart) % 2_147_483_646 + 1


class _Run:
    """What one fuzzer run said: how far it got and whether it found something."""

    def __init__(self):
        self.execs = 0
        self.final_execs: int | None = None
        self.banner = False
        self.inited = False
        self.crash_inputs: list[bytes] = []
        # The bucket signature this run's child said of the failure it raised (it raises once:
        # libFuzzer stops at the first crash); given with the crash artifact, once.
        self.signature = ""


def run_bytes_job(target: Target, variant: str, *, seed: int, duration_s: float, corpus: list[bytes],
                  workdir: str, on_crash: Callable[[CrashReport], None],
                  on_stats: Callable[[JobStats], None] | None, timeout_s: int, rss_limit_mb: int,
                  stats_interval_s: float) -> JobResult:
    deadline = time.monotonic() + duration_s
    corpus_dir, art_dir, log_dir, tmp_dir = (os.path.join(workdir, d) for d in ("corpus", "artifacts", "logs", "tmp"))
    for d in (corpus_dir, art_dir, log_dir, tmp_dir):
        os.makedirs(d, exist_ok=True)
    initial = write_inputs(corpus_dir, corpus)
    job = JobState(on_crash, on_stats, corpus_size=len(initial), interval_s=stats_interval_s)
    artifacts = ArtifactDir(art_dir)
    restarts = -1
    init_crashes = 0
    error = None
    warned = False
    stopped = False
    known: list[str] = []  # signatures this job's fuzzer crashed on: tolerated after a restart
    # libFuzzer's own timeout fires at about 2x -timeout (docs/TRAPS.md#g23); give it time before we kill.
    grace = 2 * timeout_s + 5

    while deadline - time.monotonic() >= MIN_RUN_S:
        restarts += 1
        run = _Run()
        known_before = len(known)
        extra = {"FUZZFARM_VARIANT": variant, "TMPDIR": tmp_dir}
        if known:
            extra[TOLERATE_ENV] = ";".join(known)
        env = target.child_env(extra)
        remaining = deadline - time.monotonic()
        argv = [sys.executable, target.path, f"-max_total_time={max(1, int(remaining))}",
                f"-seed={run_seed(seed, restarts)}", f"-timeout={timeout_s}", f"-rss_limit_mb={rss_limit_mb}",
                f"-artifact_prefix={art_dir}/", "-print_final_stats=1", corpus_dir]

        def on_line(line: str, run=run) -> None:
            nonlocal warned
            st = parse_status(line)
            if st is not None:
                run.execs = st.execs
                run.inited = run.inited or st.event == "INITED"
                stats = job.stats
                stats.cov = st.cov if st.cov is not None else stats.cov
                stats.ft = st.ft if st.ft is not None else stats.ft
                stats.corpus_size = st.corp if st.corp is not None else stats.corpus_size
                return
            if line.startswith(SIGNATURE_LINE):
                run.signature = line[len(SIGNATURE_LINE):].strip()
                return
            if line.startswith(FAILING_LINE):
                sig = line[len(FAILING_LINE):].strip()
                if sig and sig not in known:
                    known.append(sig)
                return
            fin = parse_final_execs(line)
            if fin is not None:
                run.final_execs = fin
            elif line.startswith(BANNER):
                run.banner = True
            elif NOT_INSTRUMENTED in line and not warned:
                warned = True
                log.warning("%s: libFuzzer sees no coverage: the harness must import what it tests for the "
                            "first time inside atheris.instrument_imports() (docs/TRAPS.md#g8)", target.name)

        def on_artifact(name: str, kind: str, data: bytes, tail, run=run) -> None:
            run.crash_inputs.append(data)
            sig, run.signature = run.signature, ""
            job.report(data, kind, crash_excerpt(list(tail.recent)), signature=sig)

        try:
            rc, tail = supervise(argv, env=env, cwd=workdir, log_path=os.path.join(log_dir, f"fuzz-{restarts}.log"),
                                 artifacts=artifacts, deadline=deadline + grace, on_line=on_line,
                                 on_artifact=on_artifact, on_poll=lambda run=run: job.tick(run.execs))
        except StopRequested:  # the fuzzer is gone (supervise kills it on any way out); keep what it did
            job.run_ended(run.execs)
            stopped = True
            break
        job.run_ended(run.final_execs if run.final_execs is not None else run.execs)
        if rc is None:  # overran the budget by more than the grace: killed
            break
        if run.crash_inputs:
            if run.inited:
                init_crashes = 0
                continue
            if len(known) > known_before:
                continue  # a new failure, tolerated from now on: the next run gets past it
            # It crashed on a corpus input (or the empty input) before fuzzing: drop the input
            # so the next run gets past it; if it keeps happening, stop.
            for data in run.crash_inputs:
                try:
                    os.unlink(os.path.join(corpus_dir, sha1(data)))
                except FileNotFoundError:
                    pass
            init_crashes += 1
            if init_crashes >= MAX_INIT_CRASHES:
                log.warning("%s: the fuzzer crashes before it can start fuzzing (on the empty input?); "
                            "stopping the job early", target.name)
                break
            continue
        if rc != 0:
            error = _exit_error(target.name, rc, run.banner, list(tail.recent))
        break

    final = job.snapshot()
    if on_stats is not None:
        on_stats(final)
    new = [d for k, d in read_inputs(corpus_dir).items() if k not in initial]
    return JobResult(stats=final, new_corpus=new, crashes=final.crashes, restarts=max(restarts, 0), error=error,
                     stopped=stopped)


def _exit_error(name: str, rc: int, banner: bool, lines: list[str]) -> str:
    why = redact(last_error_line(lines))
    if rc < 0:
        sig = signal.Signals(-rc).name if -rc in signal.Signals._value2member_map_ else str(-rc)
        return f"the fuzzer for harness {name!r} was killed by {sig} ({why}); check the worker's memory and logs"
    if not banner:
        return (f"harness {name!r} failed to start (exit code {rc}): {why}; "
                f"fix the harness or install its dependencies on this worker")
    return f"the fuzzer for harness {name!r} exited with code {rc} without a crash artifact: {why}"
