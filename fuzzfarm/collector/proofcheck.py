"""The proof as one more check of the fix verdict: one verdict per bucket that agrees with its proof.

The fix evidence (:mod:`.fixverify`) tries the reproducers and a budget of random and PCT
schedules of the scenario on the fixed variant; the proof (:mod:`.prove`) searches every schedule
of that scenario up to a bound of preemptions. A fix whose failure needs one preemption at one
spot passes 200 random and PCT schedules and fails in the proof: the two must not be shown as
``fixed`` and ``NOT fixed`` on one bucket. :func:`with_proof` appends the proof to the evidence's
``checks`` and re-decides the verdict from all of them, as :func:`.fixverify.fix_verify` does:

* the proof's counterexample is replayed in a fresh process on the fixed variant (as the fuzzed
  fix check re-checks its own, :mod:`.fixfuzz`) and judged with :func:`.verdict.run_verdict`:
  ``NO`` for the bug (its signature, or its crash type at its Go crash state), ``fails
  differently: KIND at STATE`` for anything else; its schedule is the check's ``reproducer_b64``,
  the downloaded ``fixed-fails.input`` (unless an earlier check already gave one);
* a proof without a counterexample (exhausted or not) is a passing check that states what was
  searched (its ``statement``, the proof line);
* a failure the harness declares in ``FIXED_MAY_FAIL`` never reaches here: the search counts it
  in ``tolerated`` and goes on (matched by signature, as everywhere).

``fixed`` therefore means: the reproducers pass, the budget of schedules passed, and the proof
did not refute it (docs/VERDICTS.md says what it does not promise).
"""

from __future__ import annotations

import base64

from fuzzfarm.harness.signature import classify

from . import verdict as V
from .replay import replay

NAME = "proof (bounded exhaustive search)"


def _proof_check(harness, fixed_variant: str, res: dict, expected_signature: str,
                 expected_go: tuple | None) -> tuple[dict, dict | None, dict | None]:
    """``(check, deciding outcome or None, other failure {"data", "outcome"} or None)``."""
    n = int(res.get("schedules") or 0)
    check = {"name": NAME, "runs": n, "failed": 0, "verdict": V.FIXED, "schedules": True,
             "statement": res.get("line") or "", "bound": res.get("bound"), "exhausted": bool(res.get("exhausted"))}
    f = res.get("failure")
    if not f:
        return check, None, None
    in_process = classify({"failed": True, "harness": getattr(harness, "name", harness), "variant": fixed_variant,
                           "kind": f.get("kind"), "exc_class": f.get("exc_class"),
                           "crash_state": f.get("crash_state") or [], "message": f.get("message") or ""})
    data = bytes.fromhex(res["reproducer"]) if res.get("reproducer") else None
    out = replay(harness, fixed_variant, data) if data is not None else None
    carries = bool(out and out.get("failed"))
    deciding = out if carries else in_process
    verdict = V.run_verdict(expected_signature, deciding, expected_go)
    check.update(failed=1, verdict=verdict, outcome=V.outcome_summary(deciding), carries_over=carries,
                 preemptions=f.get("preemptions"))
    if data is not None:
        check["reproducer_b64"] = base64.b64encode(data).decode()
    other = {"data": data, "outcome": deciding} if verdict == V.DIFFERENT and data is not None else None
    return check, deciding, other


def with_proof(harness, fixed_variant: str, ev: dict, res: dict, *, expected_signature: str,
               expected_go: tuple | None = None) -> tuple[dict, dict | None]:
    """The fix evidence ``ev`` (:func:`.verdict.evidence`, as the bucket stores it) with the proof
    ``res`` (:func:`.prove.prove_fixed`) as its last check and the verdict re-decided; and the
    other failure the proof found (``{"data", "outcome"}``: to be filed as its own bucket) when it
    is what makes the fixed variant fail (the verdict before the proof did not already say it
    fails), else None: a bucket already ``NO`` keeps the bucket set the fix check filed. A proof that could not run (``error``) adds no check. Idempotent: an earlier proof
    entry is replaced."""
    ev = dict(ev)
    checks = [c for c in ev.get("checks") or () if c.get("name") != NAME]
    if res.get("error"):
        ev["checks"] = checks
        return ev, None
    check, deciding, other = _proof_check(harness, fixed_variant, res, expected_signature, expected_go)
    checks.append(check)
    verdict = V.worst([c["verdict"] for c in checks])
    if verdict == V.FIXED and ev.get("flaky") and ev.get("verdict") == V.UNKNOWN_FLAKY:
        verdict = V.UNKNOWN_FLAKY  # the Fisher test's word stands when nothing failed
    outcome = ev.get("outcome") if ev.get("outcome") else (V.outcome_summary(deciding) if deciding else None)
    new = V.evidence(variant=ev.get("variant") or fixed_variant, verdict=verdict, outcome=outcome, checks=checks,
                     **{k: v for k, v in ev.items() if k not in ("variant", "verdict", "summary", "outcome", "checks",
                                                                 "schedules_tried")})
    if new.get("keeps"):  # a hazard the fix keeps: so named, whatever the checks say (fix_check)
        new["kept_also"] = bool(ev.get("kept_also")) or verdict not in (V.FIXED, V.UNKNOWN_FLAKY)
        new["verdict"] = V.KEPT
        new["summary"] = V.KEPT + ("; a reproducer fails on the fixed variant too" if new["kept_also"] else "")
    already_failing = ev.get("verdict") in (V.NO, V.DIFFERENT) or bool(ev.get("kept_also"))
    return new, (None if already_failing else other)
