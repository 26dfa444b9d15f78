"""The fix verdict: what running the fixed variant says about a bug, in words a user can act on.

Three states for a deterministic reproducer (the runtime replays the same input the same way):

* ``fixed``: the fixed variant passes the reproducer *and* every other check of the evidence
  (the original input, the fuzzed neighbourhood, the corpus);
* ``NO``: the fixed variant fails with the bug's own signature, or with its crash type at its
  Go crash state (:func:`run_verdict`);
* ``fails differently: KIND at STATE``: it fails otherwise, a timeout or a hang included.

A flaky reproducer (one that fails in k of N replays on the buggy variant, 0 < k < N) cannot be
called fixed by one passing replay: it needs M replays on ``fixed`` that pass and a buggy rate
they can be told from. :func:`fisher_p` is the one-sided Fisher exact test of "0 of M on fixed"
against "k of N on buggy"; only ``p < ALPHA`` makes it ``fixed``, else ``unknown (flaky)``.

A known hazard the fix keeps (the harness's ``FIXED_MAY_FAIL``, matched by signature) is
``kept (hazard)``. The evidence is a dict with a ``checks`` list (see :func:`evidence`): each
check says what ran, how often, what failed; a later check (e.g. a bounded exhaustive search)
appends its own entry with a ``statement`` line.
"""

from __future__ import annotations

from math import comb

from fuzzfarm.harness.signature import crash_type, normalize_state

FIXED, NO, DIFFERENT, UNKNOWN_FLAKY, KEPT = "fixed", "NO", "fails differently", "unknown (flaky)", "kept (hazard)"
ALPHA = 0.05  # the significance a flaky bug's "fixed" needs (one-sided Fisher exact test)

OUTCOME_FIELDS = ("failed", "kind", "crash_type", "crash_state", "go_crash_state", "crash_state_shape", "message",
                  "signature")


def outcome_summary(out: dict | None) -> dict:
    """The part of a classified outcome a bucket keeps (kind, crash state, message, signature)."""
    out = out or {}
    s = {k: out.get(k) for k in OUTCOME_FIELDS}
    s["failed"] = bool(s["failed"])
    s["crash_state"] = list(s["crash_state"] or [])
    s["go_crash_state"] = list(s["go_crash_state"] or [])
    s["message"] = (s["message"] or "")[:2000]
    return s


def go_failure(rec: dict | None) -> tuple | None:
    """What a failure is in Go's terms: (crash type, the Go functions of its crash state), of a
    classified outcome, a bucket or a repro.json (``crash_type`` or ``kind``/``exc_class``, and
    ``go_crash_state``); None when it records no Go crash state. The ``file.go:line`` of each
    frame is dropped, as the signature drops Python lines: a fix that edits the same function
    moves its lines. A race's two sites are a set: they are sorted by Python function, and the
    buggy and fixed code of one Go function may have Python names that sort otherwise."""
    state = (rec or {}).get("go_crash_state")
    if not state:
        return None
    ctype = rec.get("crash_type") or crash_type(rec)
    funcs = normalize_state(list(state))
    return ctype, tuple(sorted(funcs) if rec.get("kind") == "data race" else funcs)


def run_verdict(expected_signature: str, out: dict, expected_go: tuple | None = None) -> str:
    """``fixed`` / ``NO`` / ``fails differently`` for one run of the fixed variant.

    ``NO`` when it fails with the bug's signature, or, given ``expected_go`` (the bug's
    :func:`go_failure`), with the same crash type at the same Go crash state: buggy and fixed
    code paths that port one Go function carry the same ``go_func`` under two Python names, and
    the bug's Go failure on ``fixed`` is the bug, not another one. Signatures (buckets) stay on
    Python names."""
    if not out.get("failed"):
        return FIXED
    if out.get("signature") == expected_signature:
        return NO
    return NO if expected_go is not None and go_failure(out) == expected_go else DIFFERENT


def where(out: dict) -> str:
    """``KIND at f1 <- f2 <- f3`` of a failed outcome, in Go's names where the port declares them;
    a race's or a lock cycle's frames are sides, not a chain: ``KIND between f1 / f2``."""
    kind = out.get("crash_type") or out.get("kind") or "failure"
    frames = out.get("go_crash_state") or out.get("crash_state") or []
    if frames and (out.get("kind") == "data race" or out.get("crash_state_shape") in ("race", "lock cycle")):
        return f"{kind} between {' / '.join(frames)}"
    state = " <- ".join(frames) or "(no project frames)"
    return f"{kind} at {state}"


def describe(verdict: str, out: dict | None) -> str:
    """The verdict as shown: ``fails differently: KIND at STATE`` names the other failure."""
    if verdict == DIFFERENT and out:
        return f"{DIFFERENT}: {where(out)}"
    return verdict


def worst(verdicts: list[str]) -> str:
    """The verdict of several checks: any NO is NO, else any other failure, else fixed."""
    for v in (NO, DIFFERENT):
        if v in verdicts:
            return v
    return FIXED


def fisher_p(buggy_failed: int, buggy_runs: int, fixed_failed: int, fixed_runs: int) -> float:
    """One-sided Fisher exact p-value that the fixed variant fails no less often than the buggy
    one, given ``fixed_failed`` = 0 (the only case asked): the chance that all of the
    ``buggy_failed`` failures land in the buggy group when both rates are equal."""
    if fixed_failed:
        return 1.0
    k, n, m = buggy_failed, buggy_runs, fixed_runs
    if k <= 0:
        return 1.0
    return comb(n, k) / comb(n + m, k)


def flaky_statement(k: int, n: int, m: int, p: float) -> str:
    return (f"buggy failed {k}/{n} replays, fixed 0/{m}: one-sided Fisher exact p = {p:.3g} "
            f"({'below' if p < ALPHA else 'not below'} {ALPHA}: the fixed rate "
            f"{'is' if p < ALPHA else 'cannot be'} told from the buggy rate)")


def pct_statement(n: int, k: int, d: int, runs: int) -> str:
    """The PCT guarantee, stated with its figures (Burckhardt et al., ASPLOS 2010)."""
    p = 1.0 / (max(1, n) * max(1, k) ** max(0, d - 1))
    miss = (1.0 - p) ** runs
    return (f"pct with n={n} goroutines, k={k} scheduling steps, depth d={d}: each run finds a bug of "
            f"depth <= {d} in this scenario with probability >= 1/(n*k^(d-1)) = {p:.2g}, so {runs} passing "
            f"runs miss such a bug with probability <= {miss:.3g}")


def random_statement(runs: int) -> str:
    """What ``runs`` passing uniform random schedules say, with its figures: a failure that one
    random schedule of this scenario hits with probability p is missed by all of them with
    probability (1 - p)^runs."""
    def miss(p: float) -> str:
        return f"{(1.0 - p) ** runs:.0%}"
    return (f"{runs} passing random schedules: a failure that a random schedule of this scenario hits with "
            f"probability p is missed by all of them with probability (1-p)^{runs}: {miss(1 / 200)} at p = 1/200, "
            f"{miss(1 / max(1, runs))} at p = 1/{runs}, {miss(min(1.0, 3 / max(1, runs)))} at p = 3/{runs}")


def evidence(*, variant: str, verdict: str, outcome: dict | None, checks: list[dict], **extra) -> dict:
    """The fix evidence a bucket stores (``fix_evidence``): the verdict, the text shown
    (``summary``), the deciding outcome of the fixed variant, and every check that ran."""
    tried = sum(int(c.get("runs", 0)) for c in checks if c.get("schedules"))
    return {"variant": variant, "verdict": verdict, "summary": describe(verdict, outcome),
            "outcome": outcome_summary(outcome) if outcome else None, "checks": checks,
            "schedules_tried": tried, **extra}
