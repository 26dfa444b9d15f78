"""Fuzz the fixed variant in a bug's neighbourhood (ClusterFuzz's progression task, for
schedules): the reproducer's scenario (its event bytes) under ``random_runs`` random and
``pct_runs`` PCT schedules, then every corpus input as it is, all on the fixed variant.

One passing replay of one schedule says little when a fix only narrows the race window: the
same events under other schedules are where a half fix still fails. The first failure stops
the search; its bytes reproducer (``Execution.as_bytes_input``) is re-checked in a fresh
process (:func:`fuzzfarm.collector.replay.replay`) before it counts.

The search runs in a child process (``fuzzfarm.harness.child.run_child``; harness code runs only there,
each run under a wall limit).
"""

from __future__ import annotations

import base64
import time

from fuzzfarm.harness import child
from fuzzfarm.harness.target import resolve

from .replay import check_size, replay

PCT_DEPTH = 3


def fuzz_fixed(harness, variant: str, data: bytes, *, random_runs: int, pct_runs: int, corpus: list[bytes] = (),
               depth: int = PCT_DEPTH, budget_s: float = 60.0, timeout_s: float = 10.0, tolerate=()) -> dict:
    """Run the neighbourhood search; returns ``{"random": n, "pct": n, "corpus": n, "stopped":
    text, "pct_n": goroutines, "pct_k": steps, "depth": d, "failure": None | {"strategy",
    "seed", "data" (bytes reproducer), "outcome" (fresh-process replay of it), "in_process"
    (the failure as the search saw it)}}``; ``random`` / ``pct`` / ``corpus`` count the runs
    made, ``tolerated_<name>`` the runs that failed with a signature in ``tolerate`` (a known
    hazard of the fixed variant: the search goes on past it)."""
    check_size(data)
    target = resolve(harness)
    run = child.run_child("fuzzfarm.collector.fixfuzz", target, variant, data,
                          {"random": random_runs, "pct": pct_runs, "depth": depth, "budget": budget_s,
                           "timeout": timeout_s, "tolerate": list(tolerate),
                           "corpus": [base64.b64encode(c).decode() for c in corpus]},
                          timeout=budget_s + timeout_s + 15)
    res = run.result or {}
    if not res:
        how = "was killed after overrunning its budget" if run.rc is None else f"exited with code {run.rc}: {run.tail()}"
        # A hang of the fixed variant on a schedule is a finding, not an error of the search.
        res = {"random": 0, "pct": 0, "corpus": 0, "stopped": f"the search {how}", "failure": None}
    fail = res.get("failure")
    if fail:
        repro = base64.b64decode(fail.pop("data_b64"))
        fail["data"] = repro
        fail["outcome"] = replay(target, variant, repro, timeout_s=max(timeout_s, 10))
    return res


# ---------------------------------------------------------------- the child process
def _runs(data: bytes, random_runs: int, pct_runs: int, depth: int, corpus: list[bytes]):
    """``(strategy name, seed, input, strategy or None)`` in search order."""
    from fuzzfarm.strategies import PCTStrategy, RandomStrategy

    for seed in range(random_runs):
        yield "random", seed, data, RandomStrategy(seed)
    pct = PCTStrategy(1, depth=depth)  # one object: k is learned across its runs, as in a walk
    for seed in range(pct_runs):
        yield "pct", seed, data, pct
    for i, c in enumerate(corpus):
        yield "corpus", i, c, None


def _search(mod, variant: str, data: bytes, req: dict) -> dict:
    """The child's search (see :func:`fuzz_fixed`), run by ``fuzzfarm.harness.child.child_main``."""
    from fuzzfarm import harness as H
    from fuzzfarm.harness.signature import classify, hazard_name
    from fuzzfarm.engine.guard import RunTimeout, timed_out, wall_limit

    corpus = [base64.b64decode(c) for c in req["corpus"]]
    counts = {"random": 0, "pct": 0, "corpus": 0, "tolerated_random": 0, "tolerated_pct": 0, "tolerated_corpus": 0}
    tolerate = set(req["tolerate"])

    def failure(name, seed, inp, **out):
        out = classify({"harness": req["harness"], "variant": variant, "failed": True, **out})
        return {"strategy": name, "seed": seed, "data_b64": base64.b64encode(inp).decode(), "in_process": out}

    res = {"failure": None, "stopped": "budget of runs spent", "depth": req["depth"], "pct_n": 0, "pct_k": 0}
    start = time.monotonic()
    for name, seed, inp, strategy in _runs(data, req["random"], req["pct"], req["depth"], corpus):
        if time.monotonic() - start > req["budget"]:
            res["stopped"] = f"wall budget of {req['budget']:g} s spent"
            break
        counts[name] += 1
        try:
            with wall_limit(req["timeout"]):
                if strategy is None:
                    ex = mod.execute(inp, variant)
                else:
                    with H.schedule_from(strategy):
                        ex = mod.execute(inp, variant)
            if timed_out(ex):
                raise RunTimeout()
        except RunTimeout:  # a hang on fixed: its events are the reproducer (the replay times out too)
            res["failure"] = failure(name, seed, inp, kind="timeout", exc_class="RunTimeout", crash_state=[],
                                     message=f"a run did not finish within {req['timeout']:g} s")
            break
        except Exception as e:  # noqa: BLE001 - the harness's own decoding failed on a corpus input
            res["failure"] = failure(name, seed, inp, kind="harness error", exc_class=type(e).__name__,
                                     crash_state=[], message=str(e))
            break
        if name == "pct":
            res["pct_n"] = max(res["pct_n"], int(ex.report.goroutines))
            res["pct_k"] = max(res["pct_k"], int(getattr(strategy, "k", 0) or 0))
        if ex.failure is not None:
            f = ex.failure
            repro = inp if strategy is None else ex.as_bytes_input(inp)
            found = failure(name, seed, repro, kind=f.kind, exc_class=f.exc_class, crash_state=f.crash_state,
                            go_crash_state=f.go_crash_state, crash_state_shape=f.crash_state_shape,
                            message=f.detail)
            if hazard_name(f.kind, f.crash_state) in tolerate:
                counts[f"tolerated_{name}"] += 1
                continue
            res["failure"] = found
            break
    res.update(counts)
    if res["failure"] is not None:
        res["stopped"] = f"failed on {res['failure']['strategy']} run {res['failure']['seed']}"
    return res


def main(argv: list[str] | None = None) -> int:
    return child.child_main(_search, argv)


if __name__ == "__main__":
    raise SystemExit(main())
