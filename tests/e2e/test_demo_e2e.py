"""The README's main command, short: ``fuzzfarm demo`` with no Redis given starts its own
redis-server and two workers, finds both seed bugs, downloads the reproducers, and stops
everything it started."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie is gone too (G22)
    except OSError:
        return True


def test_demo_end_to_end(tmp_path):
    from farm_fixtures import E2E_WORKER_ENV, _need_redis
    _need_redis()
    env = {k: v for k, v in os.environ.items() if k != "FUZZFARM_REDIS_URL"}
    env.update(E2E_WORKER_ENV)
    p = subprocess.run([sys.executable, "-m", "fuzzfarm.cli", "demo", "--duration", "5", "--jobs", "1",
                        "-o", "out", "--json"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=540)
    assert p.returncode == 0, p.stderr[-3000:]
    res = json.loads(p.stdout)
    by_harness = {s["harness"]: s for s in res["campaigns"].values()}
    assert set(by_harness) == {"checker", "cluster-builder"}
    for h, s in by_harness.items():
        assert s["settled"] and s["status"] == "done" and s["buckets"] >= 1, s
        assert s["first_reproducer_s"] is not None
    # one group per seed bug, hazards in groups of their own, never a bug of both harnesses in one
    for cid, rows in res["buckets"].items():
        bugs = {r["group"] for r in rows if not r.get("fix_keeps")}
        assert len(bugs) == 1, [(r["group_name"], r["crash_type"], r["crash_state"]) for r in rows]
        assert all(r["group_name"].split(":")[1].strip().startswith("hazard") for r in rows if r.get("fix_keeps"))
    groups = [{r["group"] for r in rows} for rows in res["buckets"].values()]
    assert not set.intersection(*groups), groups
    assert "groups of buckets" in p.stderr
    dirs = [d["dir"] for d in res["downloads"]]
    assert any("checker-" in d for d in dirs) and any("cluster-builder-" in d for d in dirs)
    for d in dirs:
        assert (tmp_path / d / "MANIFEST.json").exists() and (tmp_path / d / "input.min").exists()
    # everything it started is stopped
    started = res["started"]
    assert started["redis_pid"] and len(started["worker_pids"]) == 2
    for pid in [started["redis_pid"], *started["worker_pids"]]:
        assert _gone(pid), pid
    assert "bucket" in p.stderr and "fuzzfarm demo: done" in p.stderr
