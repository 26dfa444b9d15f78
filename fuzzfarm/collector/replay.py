"""Replay one input in a fresh process (``python -m fuzzfarm.runone``), bounded in time and
memory, and classify what happened. Verification, fix checks and crash intake use this."""

from __future__ import annotations

import hashlib
import os

from fuzzfarm.harness import child as process
from fuzzfarm.engine.model import MAX_INPUT_BYTES
from fuzzfarm.harness.target import Target, resolve
from fuzzfarm.harness import HarnessError

from fuzzfarm.harness.signature import artifact_signature, classify
from fuzzfarm import settings

# A harness must finish importing within this (its own budget, apart from the input's time limit).
LOAD_TIMEOUT_S = settings.number("FUZZFARM_REPLAY_LOAD_TIMEOUT_S", 300.0, above=True)
# The intake replay of a libFuzzer ``timeout`` artifact: the fuzz job's own -timeout plus this.
HANG_GRACE_S = settings.number("FUZZFARM_HANG_GRACE_S", 3.0)


def check_size(data: bytes) -> None:
    """Raise ValueError for an input over ``MAX_INPUT_BYTES``."""
    if len(data) > MAX_INPUT_BYTES:
        raise ValueError(f"input is {len(data)} bytes, over the {MAX_INPUT_BYTES}-byte limit; "
                         f"it cannot be a reproducer of this farm")


def _synthetic(target: Target, variant: str, kind: str, message: str) -> dict:
    return {"harness": target.name, "variant": variant, "failed": True, "kind": kind, "exc_class": None,
            "message": message, "crash_state": [target.name], "dump": message, "decisions": [], "steps": 0,
            "preemptions": 0, "schedule_bytes": 0, "preemption_edits": [], "scenario": "", "trace": None,
            "signature": artifact_signature(kind, target.name), "crash_type": kind}


def hash_seeds(data: bytes, n: int, salt: str = "verify") -> list[int]:
    """``n`` PYTHONHASHSEED values (1 .. 2**32-1) for ``n`` replays of ``data``: pseudo-random,
    drawn from the sha256 of ``salt``, the input and the replay's index, so that each replay
    runs under its own hash seed and a triage step gives the same seeds wherever it runs."""
    out = []
    for i in range(n):
        h = hashlib.sha256(f"{salt}:{i}:".encode() + data).digest()
        out.append(int.from_bytes(h[:4], "big") % (2**32 - 1) + 1)  # never 0: every other run has 0
    return out


def replay(harness, variant: str, data: bytes, *, trace: bool = False, timeout_s: float = 30.0,
           memory_limit_mb: int = 2048, hash_seed: int | None = None) -> dict:
    """The classified outcome (see ``runone.outcome`` and ``signature.classify``) of ``data``
    run once in a fresh process. A run killed after ``timeout_s`` is kind ``timeout``; a
    MemoryError under the ``memory_limit_mb`` heap cap is kind ``oom``; a process that dies
    without an answer is kind ``replay error``. The process runs under ``PYTHONHASHSEED=0``
    (as the fuzz child that found the input, ``fuzzfarm.harness.child.child_env``) unless ``hash_seed``
    is given (the verification replays: :func:`hash_seeds`); the outcome records it as
    ``hash_seed``. Raises HarnessError when the harness cannot be loaded or has no such variant,
    ValueError for an oversized input."""
    check_size(data)
    target = resolve(harness)
    run = process.run_child("fuzzfarm.harness.runone", target, variant, data, {"trace": trace},
                            env=None if hash_seed is None else {"PYTHONHASHSEED": str(int(hash_seed))},
                            timeout=timeout_s, memory_limit_mb=memory_limit_mb, timed_from_load=True,
                            load_timeout=LOAD_TIMEOUT_S)
    if run.rc == process.NOT_STARTED:
        raise HarnessError(f"harness {target.name!r} did not finish importing within {LOAD_TIMEOUT_S:g} s "
                           f"(FUZZFARM_REPLAY_LOAD_TIMEOUT_S); the input was not run")
    out = _outcome(target, variant, run, timeout_s)
    out["hash_seed"] = 0 if hash_seed is None else int(hash_seed)
    return out


def _outcome(target: Target, variant: str, run: process.ChildRun, timeout_s: float) -> dict:
    if run.result is not None:
        return classify(run.result)
    if run.rc is None:
        return _synthetic(target, variant, "timeout", f"the replay did not finish within {timeout_s:g} s")
    if run.load_error() is not None:
        raise HarnessError(run.load_error() or f"harness {target.name!r} could not be run")
    if "MemoryError" in run.output:
        return _synthetic(target, variant, "oom", "the replay ran out of memory")
    return _synthetic(target, variant, "replay error", f"the replay process exited with code {run.rc}: {run.tail()}")


def hang_limit_s(fuzz_timeout_s: float | str | None = None) -> float:
    """How long a libFuzzer ``timeout`` input is replayed: the fuzz job's own timeout + grace."""
    base = fuzz_timeout_s if fuzz_timeout_s not in (None, "") else os.environ.get("FUZZFARM_TIMEOUT_S", "10")
    return float(base) + HANG_GRACE_S


def triage(harness, variant: str, data: bytes, *, artifact: str = "crash", timeout_s: float = 30.0,
           memory_limit_mb: int = 2048, fuzz_timeout_s: float | None = None) -> dict:
    """Classify a crash a fuzz job reported (``CrashReport.artifact``): the outcome of one
    fresh-process :func:`replay`. A libFuzzer ``timeout`` / ``oom`` / ``leak`` artifact whose
    replay does not fail keeps its artifact kind (state: the harness name), so hangs and
    memory hogs get their own buckets. A ``crash`` that does not fail on replay comes back
    with ``failed`` False and ``signature`` None: not reproducible. A ``timeout`` artifact is
    replayed for the fuzz job's own timeout plus ``HANG_GRACE_S``, not ``timeout_s``: a hang
    costs one short replay. ``fuzz_timeout_s`` is that job's ``-timeout`` (recorded with the
    crash by the fuzz worker); without it, this process's ``FUZZFARM_TIMEOUT_S``."""
    if artifact == "timeout":
        timeout_s = min(timeout_s, hang_limit_s(fuzz_timeout_s))
    out = replay(harness, variant, data, timeout_s=timeout_s, memory_limit_mb=memory_limit_mb)
    if not out["failed"] and artifact in ("timeout", "oom", "leak"):
        target = resolve(harness)
        return _synthetic(target, variant, artifact, f"libFuzzer reported a {artifact}; a replay in a fresh "
                                                     f"process finished without failing")
    return out
