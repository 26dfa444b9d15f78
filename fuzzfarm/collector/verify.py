"""Verify a reproducer: replay it N times, each in a fresh process; reproducible only if all N
give the same signature. Otherwise say where the replays' schedules first part ways."""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor

from fuzzfarm.engine.target import resolve

from .replay import check_size, replay


@dataclasses.dataclass
class VerifyResult:
    reproducible: bool
    signatures: list  # one per replay (None where it did not fail)
    first_divergence: int | None  # first decision index where the replays' schedules differ
    n: int = 0
    kinds: list = dataclasses.field(default_factory=list)  # crash type per replay ("no failure" if none)

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def first_divergence(decision_lists: list[list[int]]) -> int | None:
    """The first index at which the lists are not all equal (a list that ends early differs
    there too), or None when they are identical."""
    if not decision_lists:
        return None
    longest = max(len(d) for d in decision_lists)
    for i in range(longest):
        column = {d[i] if i < len(d) else None for d in decision_lists}
        if len(column) > 1:
            return i
    return None


def verify(harness, variant: str, data: bytes, *, n: int = 10, expected_signature: str | None = None,
           timeout_s: float = 30.0, parallel: int = 2) -> VerifyResult:
    """Replay ``data`` ``n`` times in fresh processes (``parallel`` at a time).

    ``reproducible``: all ``n`` failed with one signature (equal to ``expected_signature`` when
    given). ``first_divergence`` is computed in any case. Raises HarnessError for a harness that
    cannot be run, ValueError for an oversized input or n < 1."""
    if n < 1:
        raise ValueError("n must be at least 1")
    check_size(data)
    target = resolve(harness)
    with ThreadPoolExecutor(max_workers=max(1, min(parallel, n))) as pool:
        outs = list(pool.map(lambda _: replay(target, variant, data, timeout_s=timeout_s), range(n)))
    sigs = [o["signature"] for o in outs]
    same = sigs[0] is not None and all(s == sigs[0] for s in sigs)
    if expected_signature is not None:
        same = same and sigs[0] == expected_signature
    return VerifyResult(reproducible=same, signatures=sigs,
                        first_divergence=first_divergence([o.get("decisions") or [] for o in outs]), n=n,
                        kinds=[o["crash_type"] or "no failure" for o in outs])
