"""The shared corpus of a harness stays bounded, so its merge never outgrows a slice's time limit.

Why: each slice uploads its new inputs to ``corpus:<harness>`` and, once the corpus has grown,
merges it (libFuzzer ``-merge=1``, every input run once) inside the slice's task. A merge that
cannot shrink the corpus (every input adds coverage, or the merge fails) left it growing without
end; the merge's time grows with it, until it meets the slice's soft time limit and the slice
fails, on every worker, for every later campaign of that harness.

What: at most ``FUZZFARM_CORPUS_MAX`` inputs (default 2000). When the corpus is over the cap
after a merge (or without one), the smallest inputs are kept (ties by sha1: the same choice on
every worker), as libFuzzer itself prefers small inputs of equal coverage. The merge gets at most
half of the slice's soft margin (``MERGE_BUDGET_S``); a merge over it is stopped and counts as
failed (the cap still applies).
"""

from __future__ import annotations

import os

from fuzzfarm.farm import store as S
from fuzzfarm.farm import config
from fuzzfarm import settings

CORPUS_MAX = settings.number("FUZZFARM_CORPUS_MAX", 2000, integer=True, above=True)
MERGE_BUDGET_S = min(600.0, config.FUZZ_SOFT_MARGIN_S / 2)


def trim(st: S.Store, harness: str, cap: int | None = None) -> int:
    """Remove inputs of ``harness``'s corpus beyond ``cap`` (CORPUS_MAX), largest first. Returns how many."""
    cap = CORPUS_MAX if cap is None else cap
    return st.trim_corpus(harness, cap)


def over_cap(st: S.Store, harness: str, cap: int | None = None) -> bool:
    cap = CORPUS_MAX if cap is None else cap
    return cap > 0 and st.corpus_size(harness) > cap
