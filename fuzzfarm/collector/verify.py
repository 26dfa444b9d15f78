"""Verify a reproducer: replay it N times, each in a fresh process under its own PYTHONHASHSEED;
reproducible only if all N give the same signature. Otherwise say where the replays' schedules
first part ways, and whether the outcome follows the hash seed.

Every other child process runs under ``PYTHONHASHSEED=0`` (``fuzzfarm.harness.child.child_env``): the
fuzz child, the intake replay and the minimizer must see the run the input was found with.
The verification replays do not: "reproducible" is a claim about any process, and a bug that
depends on the order of a set of strings fails under some seeds only. Each replay's seed
(``replay.hash_seeds``: drawn from the input's sha256, never 0) is recorded; when some replays
fail and some pass, each seed is replayed twice more: if every seed gives its first outcome
again, the bucket's reproducibility depends on PYTHONHASHSEED (``hash_seed_dependent``), else
it is flaky for another reason."""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor

from fuzzfarm.harness.target import resolve

from .replay import check_size, hash_seeds, replay


@dataclasses.dataclass
class VerifyResult:
    reproducible: bool
    signatures: list  # one per replay (None where it did not fail)
    first_divergence: int | None  # first decision index where the replays' schedules differ
    n: int = 0
    kinds: list = dataclasses.field(default_factory=list)  # crash type per replay ("no failure" if none)
    hash_seeds: list = dataclasses.field(default_factory=list)  # PYTHONHASHSEED of each replay
    # True: some replays failed, some passed, and each seed gave its outcome again twice (the
    # outcome follows the hash seed); False: a seed gave another outcome (flaky otherwise);
    # None: not asked (every replay gave the same signature)
    hash_seed_dependent: bool | None = None

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
    seeds = hash_seeds(data, n)
    workers = max(1, min(parallel, n))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        outs = list(pool.map(lambda s: replay(target, variant, data, timeout_s=timeout_s, hash_seed=s), seeds))
        sigs = [o["signature"] for o in outs]
        same = sigs[0] is not None and all(s == sigs[0] for s in sigs)
        if expected_signature is not None:
            same = same and sigs[0] == expected_signature
        dependent = None
        if not all(s == sigs[0] for s in sigs):
            dependent = _follows_seed(pool, workers, target, variant, data, seeds, sigs, timeout_s)
    return VerifyResult(reproducible=same, signatures=sigs,
                        first_divergence=first_divergence([o.get("decisions") or [] for o in outs]), n=n,
                        kinds=[o["crash_type"] or "no failure" for o in outs], hash_seeds=seeds,
                        hash_seed_dependent=dependent)


AGAIN = 2  # replays more per seed before an outcome is said to follow the hash seed


def _follows_seed(pool, workers: int, target, variant: str, data: bytes, seeds: list[int], sigs: list,
                  timeout_s: float) -> bool:
    """Whether each seed gives its first signature again ``AGAIN`` times (stopping at the first
    that does not). A bug flaky for another reason (os.urandom, a wall clock) gives a k-of-n
    pattern again by chance with probability at most max_p (p^k (1-p)^(n-k))^AGAIN: 0.15% at
    k = 1, n = 10."""
    todo = [(s, sig) for s, sig in zip(seeds, sigs) for _ in range(AGAIN)]
    for i in range(0, len(todo), workers):
        chunk = todo[i:i + workers]
        outs = pool.map(lambda t: replay(target, variant, data, timeout_s=timeout_s, hash_seed=t[0]), chunk)
        if any(o["signature"] != sig for o, (_, sig) in zip(outs, chunk)):
            return False
    return True
