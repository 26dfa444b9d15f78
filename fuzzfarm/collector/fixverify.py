"""Fix verification of a bucket: every check that stands behind its fix verdict, in one place.

1. the reproducers (minimized and original) replayed once each on the fixed variant;
2. for a flaky bug (the buggy variant failed k of N replays, k < N) the minimized reproducer
   replayed ``flaky_replays`` times on ``fixed``, judged against the buggy rate
   (:func:`.verdict.fisher_p`);
3. the reproducer's scenario under ``random_runs`` random and ``pct_runs`` PCT schedules on
   ``fixed``, and the campaign corpus replayed on ``fixed`` (:mod:`.fixfuzz`).

Failures with a signature the harness declares in ``FIXED_MAY_FAIL`` (a known hazard the fix
keeps) are counted as ``tolerated`` by the search and do not decide the verdict; anything else
on ``fixed`` does. The result is the evidence dict of :func:`.verdict.evidence`; when the fixed
variant fails with another signature, ``other`` holds that failure's input and outcome (not
JSON: the caller files it as its own bucket and drops the key).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from fuzzfarm.harness.target import resolve
from fuzzfarm.harness.signature import hazard_name, signature_of

from . import verdict as V
from .fixcheck import replay_on_fixed
from .fixfuzz import fuzz_fixed
from .replay import hash_seeds, replay


def _check(name: str, runs: int, failed: int, verdict: str, outcome: dict | None = None, **extra) -> dict:
    c = {"name": name, "runs": runs, "failed": failed, "verdict": verdict, **extra}
    if outcome is not None and outcome.get("failed"):
        c["outcome"] = V.outcome_summary(outcome)
    return c


def fix_verify(harness, fixed_variant: str, minimized: bytes, *, expected_signature: str,
               original: bytes | None = None, buggy_ok: int = 1, buggy_n: int = 1, flaky: bool | None = None, corpus=(),
               random_runs: int = 100, pct_runs: int = 100, flaky_replays: int = 20, budget_s: float = 60.0,
               timeout_s: float = 10.0, parallel: int = 2, expected_go: tuple | None = None) -> dict:
    """The fix evidence of a bucket whose reproducer ``minimized`` failed ``buggy_ok`` of
    ``buggy_n`` verification replays on the buggy variant with ``expected_signature``.
    ``expected_go``: the bug in Go's terms (:func:`.verdict.go_failure` of the bucket); a failure
    on ``fixed`` with it is the bug (``NO``), whatever Python function it ran in. ``flaky``: the
    bucket's own word (farm: the verify step's, which counts a replay that passed at intake too);
    None derives it from the rate (``buggy_ok < buggy_n``). A flaky bug is judged by
    ``flaky_replays`` replays on ``fixed``, each under its own PYTHONHASHSEED as the verify
    replays were, and the Fisher test against ``buggy_ok`` of ``buggy_n``."""
    target = resolve(harness)
    kept = target.fixed_may_fail()
    checks, deciding, other = [], None, None

    def note(out, data):
        nonlocal deciding, other
        v = V.run_verdict(expected_signature, out, expected_go)
        if v == V.DIFFERENT and hazard_name(out.get("kind"), out.get("crash_state")) in kept:
            return V.FIXED  # a known hazard of the fixed variant: its own named bucket, no news
        if v != V.FIXED and deciding is None:
            deciding = out
        if v == V.DIFFERENT and other is None:
            other = {"data": data, "outcome": out}
        return v

    for name, data in (("reproducer", minimized), ("original input", original)):
        if data is None or (name == "original input" and data == minimized):
            continue
        r = replay_on_fixed(target, fixed_variant, data, expected_signature=expected_signature, timeout_s=timeout_s,
                            expected_go=expected_go)
        checks.append(_check(name, 1, int(r["failed"]), note(r, data), r))

    if flaky is None:
        flaky = buggy_n > 0 and buggy_ok < buggy_n
    flaky = bool(flaky)
    p = None
    if flaky:
        seeds = hash_seeds(minimized, flaky_replays, salt="fixed")
        with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
            outs = list(pool.map(lambda s: replay(target, fixed_variant, minimized, timeout_s=timeout_s, hash_seed=s),
                                 seeds))
        verdicts = [note(o, minimized) for o in outs]
        failed = sum(1 for v in verdicts if v != V.FIXED)
        p = V.fisher_p(buggy_ok, buggy_n, failed, flaky_replays)
        first_bad = next((o for o, v in zip(outs, verdicts) if v != V.FIXED), None)
        checks.append(_check("flaky replays", flaky_replays, failed, V.worst(verdicts), first_bad, p_value=p,
                             hash_seeds=seeds,
                             statement=V.flaky_statement(buggy_ok, buggy_n, flaky_replays, p) if not failed
                             else f"fixed failed {failed}/{flaky_replays} replays of the reproducer"))

    if random_runs or pct_runs or corpus:
        res = fuzz_fixed(target, fixed_variant, minimized, random_runs=random_runs, pct_runs=pct_runs,
                         corpus=list(corpus), budget_s=budget_s, timeout_s=timeout_s, tolerate=sorted(kept))
        fail = res.get("failure")
        fv, fout = V.FIXED, None
        if fail:
            fout = fail["outcome"] if fail["outcome"].get("failed") else fail["in_process"]
            fv = note(fout, fail["data"])
        for name, label in (("random", "schedules (random)"), ("pct", "schedules (pct)"), ("corpus", "corpus on fixed")):
            runs = int(res.get(name, 0))
            if not runs and not (name == "corpus" and corpus):
                continue
            hit = bool(fail) and fail["strategy"] == name
            extra = {"schedules": name != "corpus", "tolerated": int(res.get(f"tolerated_{name}", 0))}
            if hit:
                extra["reproducer_b64"] = _b64(fail["data"])
                extra["carries_over"] = bool(fail["outcome"].get("failed"))
            if name == "pct" and runs and not hit:
                extra["statement"] = V.pct_statement(res.get("pct_n", 0), res.get("pct_k", 0), res.get("depth", 3), runs)
            if name == "random" and runs and not hit:
                extra["statement"] = V.random_statement(runs)
            checks.append(_check(label, runs, int(hit), fv if hit else V.FIXED, fout if hit else None, **extra))
        if res.get("stopped") and checks:
            checks[-1].setdefault("stopped", res["stopped"])

    # The proof (a bounded exhaustive search of the scenario) is appended later, when it ends, by
    # collector.proofcheck.with_proof: it counts in schedules_tried and decides like every other check.
    verdict = V.worst([c["verdict"] for c in checks])
    if verdict == V.FIXED and flaky and not (p is not None and p < V.ALPHA):
        verdict = V.UNKNOWN_FLAKY
    ev = V.evidence(variant=fixed_variant, verdict=verdict, outcome=deciding, checks=checks, flaky=flaky,
                    buggy_rate=[buggy_ok, buggy_n])
    if other is not None and signature_of(other["outcome"]) != expected_signature:
        ev["other"] = other
    return ev


def _b64(data: bytes) -> str:
    import base64
    return base64.b64encode(data).decode()
