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

from .corpus import read_inputs, sha1, write_inputs
from .libfuzzer_output import (BANNER, NOT_INSTRUMENTED, crash_excerpt, last_error_line, parse_final_execs,
                               parse_status)
from .model import CrashReport, JobResult, JobStats
from .redact import redact
from .supervise import ArtifactDir, JobState, run_restarting
from fuzzfarm.harness.target import Target

log = logging.getLogger(__name__)

MIN_RUN_S = 1.0  # don't start a fuzzer for less than this (startup alone takes ~0.5 s)
MAX_INIT_CRASHES = 2  # restarts that crash before fuzzing starts: then the job stops


def run_seed(seed: int, restart: int) -> int:
    """libFuzzer seed of the ``restart``-th run of job ``seed``: deterministic, never 0 (which
    would make libFuzzer pick a random one), and apart from other jobs' seeds."""
    return (seed * 1_000_003 + restart) % 2_147_483_646 + 1


class _Fuzzer:
    """The job's side of its fuzzer runs (``supervise.run_restarting``): each run's command line,
    what its log says, and after each run whether the next one starts."""

    def __init__(self, target: Target, variant: str, job: JobState, *, seed: int, timeout_s: int, rss_limit_mb: int,
                 corpus_dir: str, art_dir: str, tmp_dir: str):
        self.target, self.variant, self.job, self.seed = target, variant, job, seed
        self.timeout_s, self.rss_limit_mb = timeout_s, rss_limit_mb
        self.corpus_dir, self.art_dir, self.tmp_dir = corpus_dir, art_dir, tmp_dir
        self.known: list[str] = []  # signatures this job's fuzzer crashed on: tolerated after a restart
        self.init_crashes = 0
        self.warned = False
        self.error: str | None = None

    def launch(self, restart: int, remaining: float) -> tuple[list[str], dict]:
        # what this run says: how far it got and whether it found something
        self.execs, self.final_execs, self.banner, self.inited = 0, None, False, False
        self.crash_inputs: list[bytes] = []
        # The bucket signature this run's child said of the failure it raised (it raises once:
        # libFuzzer stops at the first crash); given with the crash artifact, once.
        self.signature = ""
        self.known_before = len(self.known)  # failures the job knew when this run started
        extra = {"FUZZFARM_VARIANT": self.variant, "TMPDIR": self.tmp_dir}
        if self.known:
            extra[TOLERATE_ENV] = ";".join(self.known)
        argv = [sys.executable, self.target.path, f"-max_total_time={max(1, int(remaining))}",
                f"-seed={run_seed(self.seed, restart)}", f"-timeout={self.timeout_s}",
                f"-rss_limit_mb={self.rss_limit_mb}", f"-artifact_prefix={self.art_dir}/", "-print_final_stats=1",
                self.corpus_dir]
        return argv, self.target.child_env(extra)

    def on_line(self, line: str) -> None:
        st = parse_status(line)
        if st is not None:
            self.execs = st.execs
            self.inited = self.inited or st.event == "INITED"
            stats = self.job.stats
            stats.cov = st.cov if st.cov is not None else stats.cov
            stats.ft = st.ft if st.ft is not None else stats.ft
            stats.corpus_size = st.corp if st.corp is not None else stats.corpus_size
            return
        if line.startswith(SIGNATURE_LINE):
            self.signature = line[len(SIGNATURE_LINE):].strip()
            return
        if line.startswith(FAILING_LINE):
            sig = line[len(FAILING_LINE):].strip()
            if sig and sig not in self.known:
                self.known.append(sig)
            return
        fin = parse_final_execs(line)
        if fin is not None:
            self.final_execs = fin
        elif line.startswith(BANNER):
            self.banner = True
        elif NOT_INSTRUMENTED in line and not self.warned:
            self.warned = True
            log.warning("%s: libFuzzer sees no coverage: the harness must import what it tests for the "
                        "first time inside atheris.instrument_imports() (docs/TRAPS.md#g8)", self.target.name)

    def on_artifact(self, name: str, kind: str, data: bytes, tail) -> None:
        self.crash_inputs.append(data)
        sig, self.signature = self.signature, ""
        self.job.report(data, kind, crash_excerpt(list(tail.recent)), signature=sig)

    def ended(self, rc: int | None, tail, stopped: bool) -> bool:
        """Count the run's execs (its final figure, unless a stop request cut it short); whether the
        next run starts."""
        self.job.run_ended(self.final_execs if self.final_execs is not None and not stopped else self.execs)
        if stopped or rc is None:  # rc None: overran the budget by more than the grace: killed
            return False
        if self.crash_inputs:
            if self.inited:
                self.init_crashes = 0
                return True
            if len(self.known) > self.known_before:
                return True  # a new failure, tolerated from now on: the next run gets past it
            # It crashed on a corpus input (or the empty input) before fuzzing: drop the input
            # so the next run gets past it; if it keeps happening, stop.
            for data in self.crash_inputs:
                try:
                    os.unlink(os.path.join(self.corpus_dir, sha1(data)))
                except FileNotFoundError:
                    pass
            self.init_crashes += 1
            if self.init_crashes >= MAX_INIT_CRASHES:
                log.warning("%s: the fuzzer crashes before it can start fuzzing (on the empty input?); "
                            "stopping the job early", self.target.name)
                return False
            return True
        if rc != 0:
            self.error = _exit_error(self.target.name, rc, self.banner, list(tail.recent))
        return False


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
    fuzzer = _Fuzzer(target, variant, job, seed=seed, timeout_s=timeout_s, rss_limit_mb=rss_limit_mb,
                     corpus_dir=corpus_dir, art_dir=art_dir, tmp_dir=tmp_dir)
    # libFuzzer's own timeout fires at about 2x -timeout (docs/TRAPS.md#g23); give it time before we kill.
    restarts, stopped = run_restarting(fuzzer, job, ArtifactDir(art_dir), workdir=workdir, log_dir=log_dir,
                                       name="fuzz", deadline=deadline, grace_s=2 * timeout_s + 5, min_run_s=MIN_RUN_S)
    final = job.final()
    new = [d for k, d in read_inputs(corpus_dir).items() if k not in initial]
    return JobResult(stats=final, new_corpus=new, crashes=final.crashes, restarts=restarts, error=fuzzer.error,
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
