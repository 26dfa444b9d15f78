"""Bucket identity: crash type + crash state, hashed.

* crash type: the failure kind, plus the exception class when it says more than the kind
  (``goroutine panic (TypeError)``; ``concurrent map writes`` alone);
* crash state: the top 3 project frames of the failing goroutine, function names only (no
  files, no line numbers; runtime and stdlib frames were already dropped by gosim), as
  ClusterFuzz's ``crash_state``;
* signature: sha1 hex of both. Same signature, same bucket.

A libFuzzer timeout or OOM that does not reproduce as a runtime failure has kind ``timeout`` /
``oom`` and the harness name as its state (:func:`artifact_signature`).
"""

from __future__ import annotations

import hashlib
import json
import re

from fuzzfarm.gosim.failures import ALL_FAILURES, GoFailure

MAX_CRASH_STATE_FRAMES = 3
# For these the class name repeats the kind; for anything else (a panic) it adds to it.
_FAILURE_CLASSES = frozenset(c.__name__ for c in (GoFailure, *ALL_FAILURES))
_LOCATION = re.compile(r"\s*\((?:[^()]*:\d+)\)\s*$|:\d+$")


def _type(kind: str, exc_class: str | None) -> str:
    if exc_class and exc_class not in _FAILURE_CLASSES:
        return f"{kind} ({exc_class})"
    return kind


def crash_type(outcome: dict) -> str:
    """``"goroutine panic (TypeError)"``, ``"concurrent map writes"``, ``"timeout"`` ..."""
    return _type(outcome.get("kind") or "no failure", outcome.get("exc_class"))


def normalize_state(crash_state: list[str]) -> list[str]:
    """The top 3 frames as bare function names (a ``" (file.py:12)"`` or ``":12"`` suffix is
    dropped, should a caller pass rendered frames)."""
    return [_LOCATION.sub("", f).strip() for f in crash_state[:MAX_CRASH_STATE_FRAMES]]


def signature(kind: str, exc_class: str | None, crash_state: list[str]) -> str:
    """sha1 hex of the crash type and crash state."""
    blob = json.dumps({"type": _type(kind, exc_class), "state": normalize_state(crash_state)}, sort_keys=True)
    return hashlib.sha1(blob.encode()).hexdigest()


def signature_of(outcome: dict) -> str | None:
    """The signature of a ``runone`` outcome dict, or None when it did not fail."""
    if not outcome.get("failed"):
        return None
    return signature(outcome["kind"], outcome.get("exc_class"), outcome.get("crash_state") or [])


def hazard_name(kind: str, crash_state: list[str]) -> str:
    """``kind at f1 <- f2 <- f3``: how a harness's ``FIXED_MAY_FAIL`` and ``FUZZFARM_TOLERATE``
    name one failure (its kind and crash state; ``harness.failure_signature`` of a GoFailure)."""
    return f"{kind} at {' <- '.join(normalize_state(list(crash_state or [])))}"


def artifact_signature(kind: str, harness: str) -> str:
    """Signature of a libFuzzer ``timeout`` / ``oom`` artifact that is no runtime failure."""
    return signature(kind, None, [harness])


# Failures the collector folds into a resource kind of their own (``classify``), exception
# class -> kind.
FOLDED = {"MemoryError": "oom", "RunTimeout": "timeout"}


def engine_signature(outcome: dict) -> str | None:
    """The signature a collector replay (``classify``) gives a fuzz child's failure, as the
    child reports it with the crash (harness.SIGNATURE_LINE, the walk's crash line): None when
    it did not fail or the collector folds it (its signature is then the replay's to decide)."""
    if outcome.get("exc_class") in FOLDED:
        return None
    return signature_of(outcome)


def classify(outcome: dict) -> dict:
    """``outcome`` (a ``runone`` dict) with resource failures folded into their own kinds and
    ``signature`` / ``crash_type`` added: a MemoryError becomes kind ``oom`` and a run stopped
    by the wall limit (``RunTimeout``) kind ``timeout``, both with the harness name as state,
    so they bucket like libFuzzer's oom / timeout artifacts."""
    out = dict(outcome)
    if out.get("failed") and out.get("exc_class") in FOLDED:
        out["kind"] = FOLDED[out["exc_class"]]
        out["exc_class"] = None
        out["crash_state"] = [out.get("harness") or "?"]
    out["signature"] = signature_of(out)
    out["crash_type"] = crash_type(out) if out.get("failed") else None
    return out
