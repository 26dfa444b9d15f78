"""The CI mode's acceptance run (slow: two 30-second campaigns and their triage): with no farm
given or running, ``fuzzfarm ci checker --duration 30 --junit j.xml`` starts its own, exits 1
with one failing test case per new reproducible bucket (one per seed bug group until buckets
are grouped), and the same run with ``--baseline j.xml`` exits 0 unless it finds a bucket the
first did not."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from junitparser import JUnitXml

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(1500)]


def test_ci_fails_on_new_buckets_then_passes_with_that_run_as_baseline(tmp_path):
    from farm_fixtures import _need_redis
    _need_redis()
    env = {k: v for k, v in os.environ.items() if k != "FUZZFARM_REDIS_URL"}
    env["XDG_DATA_HOME"] = str(tmp_path / "data")  # no local farm: ci starts its own

    def ci(*args):
        return subprocess.run([sys.executable, "-m", "fuzzfarm.cli", "ci", "checker", "--duration", "30", *args],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1400)

    p = ci("--junit", "j.xml", "-o", "run1")
    assert p.returncode == 1, p.stderr[-3000:]
    assert "starting one for this run" in p.stderr
    rep = json.loads((tmp_path / "run1" / "ci.json").read_text())
    (suite,) = JUnitXml.fromfile(str(tmp_path / "j.xml"))
    assert suite.failures == rep["new_reproducible"] >= 1
    print("\nJUnit of the seed campaign:\n" + (tmp_path / "j.xml").read_text())
    q = ci("--baseline", "j.xml", "-o", "run2")
    rep2 = json.loads((tmp_path / "run2" / "ci.json").read_text())
    unseen = [b for b in rep2["buckets"] if b["id"] not in rep2["baseline"] and b.get("reproducible")]
    assert q.returncode == (1 if unseen else 0), q.stderr[-3000:]
    assert not unseen, f"the second run found buckets the first did not: {[b['crash_state'] for b in unseen]}"
