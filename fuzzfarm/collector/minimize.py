"""Minimize a reproducer: first its bytes, then its schedule (fewest preemptions), keeping
the exact signature. See ``shrink.py`` for the algorithm.

The public :func:`minimize` runs the shrinker in a child process, since a harness may hang or
crash on a candidate (``fuzzfarm.harness.child.run_child``).

The child loads the harness once, runs candidates in-process (uninstrumented, each under a
wall limit), writes ``best`` in its directory every time it improves and its result at the end.
The parent kills it if it overruns its wall budget and keeps the last ``best``; it then
re-checks the result's signature in a fresh process, falling back to the original input.
"""

from __future__ import annotations

import base64
import dataclasses
import os
import time

from fuzzfarm.harness import child
from fuzzfarm.harness.target import resolve
from fuzzfarm.harness import DEFAULT_MAX_STARVATION_S

from .replay import check_size, replay
from .shrink import ExitReason, Probe, Shrinker
from fuzzfarm.harness.signature import artifact_signature, classify


@dataclasses.dataclass
class MinimizeResult:
    data: bytes
    original_size: int
    minimized_size: int
    preemptions_before: int
    preemptions_after: int
    runs: int
    signature: str | None  # of ``data`` in a fresh process: the expected one unless the input itself did not reproduce
    stopped: str = ""  # why it stopped (ExitReason text, or what went wrong)
    rejected_other: int = 0  # candidates refused because they failed with another signature
    elapsed_s: float = 0.0

    def to_json(self) -> dict:
        d = dataclasses.asdict(self)
        d["data_b64"] = base64.b64encode(d.pop("data")).decode()
        return d


def _write_atomic(path: str, payload: bytes) -> None:
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(payload)
    os.replace(tmp, path)


def minimize(harness, variant: str, data: bytes, *, expected_signature: str, budget_s: float = 60,
             max_runs: int = 20_000, timeout_s: float = 10.0, workdir: str | None = None,
             bound2_other_streak: int | None = None) -> MinimizeResult:
    """Minimize ``data`` keeping ``expected_signature``, within ``budget_s`` wall seconds and
    ``max_runs`` runs (each run limited to ``timeout_s``). Deterministic for a given run budget.
    ``bound2_other_streak``: ``Shrinker.BOUND2_OTHER_STREAK`` when not None (the minimization
    benchmark's before/after).

    Timeout / OOM reproducers are returned unchanged (every run would take the limit). Raises
    HarnessError for an unknown harness, ValueError for an oversized input."""
    check_size(data)
    target = resolve(harness)
    start = time.monotonic()

    def unchanged(why: str, preemptions: int = 0, runs: int = 0, sig: str | None = expected_signature) -> MinimizeResult:
        return MinimizeResult(data, len(data), len(data), preemptions, preemptions, runs, sig,
                              stopped=why, elapsed_s=round(time.monotonic() - start, 3))

    if expected_signature in (artifact_signature("timeout", target.name), artifact_signature("oom", target.name)):
        return unchanged("timeout and oom reproducers are not minimized")
    run = child.run_child("fuzzfarm.collector.minimize", target, variant, data,
                          {"expect": expected_signature, "budget": budget_s, "max_runs": max_runs, "timeout": timeout_s,
                           "bound2_other_streak": bound2_other_streak},
                          timeout=budget_s + timeout_s + 15, keep=("best",), workdir=workdir)
    info, best = run.result or {}, run.files.get("best", data)
    if not info:
        how = "was killed after overrunning its wall budget" if run.rc is None else f"exited with code {run.rc}: {run.tail()}"
        info = {"stopped": f"the minimizer {how}", "runs": 0}
    # Trust nothing: the result must give the expected signature in a fresh process.
    check = replay(target, variant, best, timeout_s=max(timeout_s, 10))
    if check["signature"] != expected_signature:
        if best == data:
            return unchanged(info["stopped"] + "; the input does not reproduce in a fresh process",
                             check["preemptions"], info.get("runs", 0), check["signature"])
        best = data
        info["stopped"] += "; the result did not re-check in a fresh process, kept the original"
        check = replay(target, variant, best, timeout_s=max(timeout_s, 10))
    before = info.get("preemptions_before")
    if before is None:
        before = check["preemptions"] if best == data else replay(target, variant, data)["preemptions"]
    return MinimizeResult(best, len(data), len(best), before, check["preemptions"], info.get("runs", 0),
                          expected_signature, stopped=info["stopped"], rejected_other=info.get("rejected_other", 0),
                          elapsed_s=round(time.monotonic() - start, 3))


# ---------------------------------------------------------------- the child process
def _prober(mod, name: str, variant: str, timeout_s: float):
    from fuzzfarm.engine.guard import RunTimeout, wall_limit
    from fuzzfarm.harness.runone import outcome_of_module

    def test(data: bytes) -> Probe:
        try:
            with wall_limit(timeout_s):
                out = outcome_of_module(mod, name, variant, data)
        except RunTimeout:
            out = {"harness": name, "failed": True, "kind": "timeout", "exc_class": "RunTimeout", "crash_state": []}
        except MemoryError:
            out = {"harness": name, "failed": True, "kind": "oom", "exc_class": "MemoryError", "crash_state": []}
        out = classify(out)
        return Probe(out["signature"], out.get("preemptions", 0),
                     tuple(tuple(e) for e in out.get("preemption_edits", ())), out.get("schedule_bytes", 0),
                     tuple(out.get("decisions", ())), out.get("scenario", ""), out.get("starvation") or 0.0,
                     sum(r[2] for r in out.get("starved_all") or ()))

    return test


def _run(mod, variant: str, timeout_s: float, strategy, data: bytes, trace: bool = False):
    """``(bytes input of the run of data's events under strategy, its signature or None)``: the
    signature the prober gives that bytes input, so the bounded search's candidates need no
    second run to be refused (a replay of the bytes input makes the same schedule)."""
    from fuzzfarm.engine.guard import RunTimeout, wall_limit
    from fuzzfarm.harness import schedule_from

    try:
        with wall_limit(timeout_s), schedule_from(strategy):
            ex = mod.execute(data, variant, trace=trace)
    except (RunTimeout, MemoryError, Exception):  # noqa: BLE001 - a bad candidate is just rejected
        return data, None
    f = ex.failure
    sig = None if f is None else classify({"harness": mod.NAME, "failed": True, "kind": f.kind,
                                           "exc_class": f.exc_class, "crash_state": f.crash_state})["signature"]
    return ex.as_bytes_input(data), sig


def _run_with(mod, variant: str, timeout_s: float, strategy, data: bytes, trace: bool = False) -> bytes:
    return _run(mod, variant, timeout_s, strategy, data, trace)[0]


def _bounded(mod, variant: str, timeout_s: float):
    """``bounded(data, overrides, events)`` for the shrinker (see ``strategies.guided.BoundedStrategy``);
    traced when ``events``, so that each decision point says which event came just before it."""
    from fuzzfarm.strategies.guided import BoundedStrategy

    def bounded(data: bytes, overrides, events: bool = True):
        strategy = BoundedStrategy(overrides)
        candidate, sig = _run(mod, variant, timeout_s, strategy, data, trace=events)
        return candidate, strategy.points, sig

    return bounded


def _guide(mod, variant: str, timeout_s: float):
    """``guide(data, decisions, drop)`` for the shrinker: run ``data``'s events with the
    schedule following ``decisions`` by identity, preemption ``drop`` refused; return the
    equivalent bytes input and the run's preemption points."""
    from fuzzfarm.strategies.guided import GuidedStrategy

    def guide(data: bytes, decisions, drop):
        strategy = GuidedStrategy(decisions, drop)
        return _run_with(mod, variant, timeout_s, strategy, data), strategy.preemptions_at

    return guide


def _switches(mod, variant: str, timeout_s: float):
    """``switches(data, decisions)`` for the shrinker: the run's anchored context switches."""
    from fuzzfarm.strategies.anchored import AnchorRecorder
    from fuzzfarm.strategies.guided import GuidedStrategy

    def switches(data: bytes, decisions):
        recorder = AnchorRecorder(GuidedStrategy(decisions))
        _run_with(mod, variant, timeout_s, recorder, data)
        return recorder.switches

    return switches


def _anchored(mod, variant: str, timeout_s: float):
    """``anchored(data, switches)`` for the shrinker: the bytes input making exactly those switches."""
    from fuzzfarm.strategies.anchored import AnchoredStrategy

    def anchored(data: bytes, switches):
        return _run_with(mod, variant, timeout_s, AnchoredStrategy(switches), data)

    return anchored


def _shrink(mod, variant: str, data: bytes, req: dict) -> dict:
    """The child's shrinker (see :func:`minimize`), run by ``fuzzfarm.harness.child.child_main``: ``best``
    in its working directory after every improvement, the result as its answer."""
    best_path, t = "best", req["timeout"]
    shrinker = Shrinker(_prober(mod, req["harness"], variant, t), data, req["expect"], max_runs=req["max_runs"],
                        budget_s=req["budget"], on_improve=lambda d, p: _write_atomic(best_path, d),
                        guide=_guide(mod, variant, t), bounded=_bounded(mod, variant, t),
                        switches=_switches(mod, variant, t), anchored=_anchored(mod, variant, t),
                        realism_s=DEFAULT_MAX_STARVATION_S)
    if req.get("bound2_other_streak") is not None:
        shrinker.BOUND2_OTHER_STREAK = req["bound2_other_streak"]
    reason = shrinker.run()
    result = {
        "stopped": reason.describe(max_runs=req["max_runs"], budget_s=req["budget"]),
        "runs": shrinker.runs,
        "shrinks": shrinker.shrinks,
        "rejected_other": shrinker.rejected_other,
        "original_size": len(data),
        "minimized_size": len(shrinker.best),
        "preemptions_before": shrinker.initial_probe.preemptions if shrinker.initial_probe else None,
        "preemptions_after": shrinker.best_probe.preemptions if shrinker.best_probe else None,
    }
    if reason is not ExitReason.not_reproducible:
        _write_atomic(best_path, shrinker.best)
    return result


def main(argv: list[str] | None = None) -> int:
    return child.child_main(_shrink, argv)


if __name__ == "__main__":
    raise SystemExit(main())
