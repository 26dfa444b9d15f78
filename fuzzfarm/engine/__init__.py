"""Run one fuzz job: atheris for ``bytes``, a seeded schedule walk for ``random`` / ``pct``.

Celery-free: the farm's fuzz task calls :func:`run_fuzz_job` and persists what it reports.
See docs/INTERFACES.md. Importing this package imports no harness and no runtime.
"""

from __future__ import annotations

import os
from collections.abc import Callable

# ``pct:D`` (PCT of depth D) and ``walk-mix`` (a portfolio of the walks in one process,
# fuzzfarm/strategies/mix.py) are walks too; ``mix`` campaigns are the farm's (farm/portfolio.py).
STRATEGIES = ("bytes", "random", "pct", "walk-mix")


def known_strategy(name: str) -> bool:
    """``name`` is a strategy :func:`run_fuzz_job` runs (one of STRATEGIES or ``pct:D``)."""
    if name in STRATEGIES:
        return True
    return name.startswith("pct:") and name[4:].isdigit() and int(name[4:]) >= 1

__all__ = ["run_fuzz_job", "merge_corpus", "CrashReport", "JobStats", "JobResult", "StopRequested", "STRATEGIES", "MAX_INPUT_BYTES"]


_MODEL = ("MAX_INPUT_BYTES", "CrashReport", "JobResult", "JobStats", "StopRequested")


def __getattr__(name: str):
    # Everything but known_strategy is imported on first use: a walk child (``python -m
    # fuzzfarm.engine.walk``) imports this package first, and ``merge_corpus``'s module pulls in
    # subprocess, ctypes, logging and tempfile, the job model base64 and dataclasses, none of
    # which it needs before its first schedule (it loads dataclasses itself, after deferring
    # inspect: fuzzfarm/engine/lazy_stdlib.py). Start-up figures: docs/BENCHMARKS.md#startup.
    if name == "merge_corpus":
        from .corpus import merge_corpus

        return merge_corpus
    if name in _MODEL:
        from . import model

        return getattr(model, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run_fuzz_job(*, harness, variant: str, strategy: str = "bytes", seed: int, duration_s: float,
                 corpus: list[bytes], workdir: str, on_crash: Callable[[CrashReport], None],
                 on_stats: Callable[[JobStats], None] | None = None, timeout_s: int = 10,
                 rss_limit_mb: int = 2048, stats_interval_s: float = 1.0, prior: dict | None = None,
                 max_starvation=None) -> JobResult:
    """Fuzz ``harness``/``variant`` for ``duration_s`` seconds in ``workdir`` (created if
    missing; private to the job). ``on_crash`` gets each crash as it is found; ``on_stats``
    gets :class:`JobStats` about every ``stats_interval_s`` and once at the end.

    ``prior``: for ``walk-mix``, the campaign's counts per arm so far (farm/portfolio.py).
    ``max_starvation``: the campaign's starvation bound for the fuzzer's runs (seconds or
    ``"none"``; None: the worker's ``FUZZFARM_MAX_STARVATION_S`` or the default).

    Never raises for a bad harness or argument: the result's ``error`` says what is wrong.
    Exceptions raised by the callbacks propagate (after the fuzzer has been killed).
    """
    from fuzzfarm.harness import HarnessError

    from .model import JobResult, JobStats
    from fuzzfarm.harness.target import resolve

    empty = JobResult(stats=JobStats(), new_corpus=[], crashes=0, restarts=0)
    if not known_strategy(strategy):
        empty.error = f"unknown strategy {strategy!r}; choose one of {', '.join(STRATEGIES)} or pct:DEPTH"
        return empty
    if not duration_s or duration_s <= 0 or timeout_s <= 0 or rss_limit_mb <= 0:
        empty.error = "duration_s, timeout_s and rss_limit_mb must be positive"
        return empty
    try:
        target = resolve(harness, max_starvation)
    except HarnessError as e:
        empty.error = str(e)
        return empty
    except ValueError as e:  # a bad bound in the campaign's record (the CLI refuses one at submit)
        empty.error = f"max_starvation_s {e}"
        return empty
    empty.error = target.check_variant(variant)
    if empty.error:
        return empty
    os.makedirs(workdir, exist_ok=True)
    workdir = os.path.abspath(workdir)
    kw = dict(seed=seed, duration_s=duration_s, corpus=corpus, workdir=workdir, on_crash=on_crash,
              on_stats=on_stats, timeout_s=timeout_s, rss_limit_mb=rss_limit_mb, stats_interval_s=stats_interval_s)
    if strategy == "bytes":
        from .atheris_job import run_bytes_job

        return run_bytes_job(target, variant, **kw)
    from .walk import run_walk_job

    return run_walk_job(target, variant, strategy, prior=prior, **kw)
