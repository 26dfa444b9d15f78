"""The walk child with ``walk-mix`` (fuzzfarm/engine/walk.py): new failure signatures reach the
mix as rewards, every run is counted once per distinct schedule, and the figures are emitted."""

from __future__ import annotations

import pytest

from fuzzfarm import harness as H
from fuzzfarm.engine.walk import walk


def test_walk_mix_rewards_new_failures_and_counts_distinct_schedules(tmp_path):
    try:
        mod = H.get("cluster-builder").load()
    except H.HarnessError as e:
        pytest.skip(str(e))
    lines = []
    rc = walk(mod, "buggy", "walk-mix", seed=1, restart=0, max_time=1.0, out_dir=str(tmp_path), timeout_s=10,
              per_signature=1, emit=lines.append)
    assert rc == 0
    final = lines[-1]
    assert final.get("done")
    arms = final["arms"]
    kinds = {ln["crash_state"][0] + ln["kind"] for ln in lines if "artifact" in ln}
    assert kinds  # the seed bug is found within a second
    assert sum(a["finds"] for a in arms.values()) >= len(kinds) >= 1
    assert sum(a["runs"] for a in arms.values()) <= final["execs"]
    assert 0 < final["distinct"] <= final["execs"]
    assert abs(sum(final["weights"].values()) - 1) < 0.01
