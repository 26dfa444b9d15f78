"""The engine and collector on the real harnesses: a short job finds a seed-bug input (atheris
for ``checker``, a random walk for ``cluster-builder``: the fastest each), which is minimized,
verified 10/10 and fix-checked against ``fixed``."""

import pytest

from fuzzfarm.collector import replay_on_fixed, minimize, triage, verify
from fuzzfarm.engine import run_fuzz_job
from fuzzfarm.harness import registry

# (strategy, seconds of fuzzing): the job fuzzes its whole time, and checker's seed bug comes
# within tens of runs, so 5 s is plenty; cluster-builder's random walk needs a few seconds more.
STRATEGY = {"checker": ("bytes", 5), "cluster-builder": ("random", 6)}
# Fewest preemptions each seed bug needs (measured; the prow T1 map writes need two).
PREEMPTION_FLOOR = {"checker": 1, "cluster-builder": 2}
SEED_KINDS = {
    "checker": {"goroutine panic (TypeError)"},
    "cluster-builder": {"concurrent map writes", "concurrent map read and map write",
                        "concurrent map iteration and map write"},
}


@pytest.mark.parametrize("name", sorted(SEED_KINDS))
def test_found_minimized_verified_fixed(name, tmp_path):
    if name not in registry():
        pytest.skip(f"harness {name} is not installed")
    crashes = []
    strategy, duration = STRATEGY[name]
    res = run_fuzz_job(harness=name, variant="buggy", strategy=strategy, seed=1, duration_s=duration, corpus=[],
                       workdir=str(tmp_path), on_crash=crashes.append)
    assert res.error is None
    found = None
    for c in crashes:
        out = triage(name, "buggy", c.data)
        if out["crash_type"] in SEED_KINDS[name]:
            found = (c.data, out)
            break
    assert found, f"no seed-bug crash among {len(crashes)} in {duration} s"
    data, out = found
    m = minimize(name, "buggy", data, expected_signature=out["signature"], budget_s=60)
    assert m.signature == out["signature"]
    assert m.minimized_size <= m.original_size and m.preemptions_after <= m.preemptions_before
    if m.preemptions_before > PREEMPTION_FLOOR[name]:  # more than the bug needs: fewer after
        assert m.preemptions_after < m.preemptions_before, (m.preemptions_before, m.preemptions_after, m.stopped)
    v = verify(name, "buggy", m.data, n=10, expected_signature=out["signature"])
    assert v.reproducible and v.first_divergence is None
    f = replay_on_fixed(name, "fixed", m.data, expected_signature=out["signature"])
    assert f["fixed"], f
