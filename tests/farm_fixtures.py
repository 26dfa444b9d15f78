"""Fixtures for farm tests: a real ``redis-server`` (never fakeredis) and real Celery worker
processes, started by the same launcher as ``fuzzfarm demo`` (:mod:`fuzzfarm.farm.embedded`).

Without a ``redis-server`` binary the farm tests are skipped, unless ``FUZZFARM_REQUIRE_REDIS=1``
(set by ``scripts/test`` and so by CI), where a missing binary is an error.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from fuzzfarm.farm.embedded import Farm, RedisServer, redis_server_binary

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _need_redis() -> None:
    if redis_server_binary() is None:
        if os.environ.get("FUZZFARM_REQUIRE_REDIS") == "1":
            pytest.fail("redis-server is not installed (FUZZFARM_REQUIRE_REDIS=1): run scripts/setup")
        pytest.skip("redis-server is not installed; scripts/test installs it")


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """A private redis-server for the session (loopback, free port, AOF on)."""
    _need_redis()
    srv = RedisServer(str(tmp_path_factory.mktemp("redis")))
    srv.start()
    yield srv
    srv.cleanup()


@pytest.fixture
def store(redis_server):
    """A Store on a flushed database of the session's redis-server."""
    from fuzzfarm.farm.store import Store
    st = Store(redis_server.url)
    st.r.flushdb()
    yield st
    st.r.close()


# Workers of the e2e farm: short triage budgets so the suite stays fast.
E2E_WORKER_ENV = {"FUZZFARM_MINIMIZE_BUDGET_S": "15", "FUZZFARM_TIMEOUT_S": "10", "FUZZFARM_PROVE_BUDGET_S": "3",
                  "FUZZFARM_SKEW_HANDBACKS": "2", "FUZZFARM_SKEW_BACKOFF_S": "0.2"}


@pytest.fixture(scope="session")
def farm(tmp_path_factory):
    """redis-server + 2 real Celery worker processes (queue fuzz, -c 2; queue collect, -c 2)."""
    _need_redis()
    f = Farm(workdir=str(tmp_path_factory.mktemp("farm")), fuzz_concurrency=2, collect_concurrency=2,
             worker_env=E2E_WORKER_ENV)
    f.start()
    yield f
    f.stop()
    for w in f.workers:
        assert not w.alive(), f"worker {w.name} outlived the farm"


class CLI:
    """Runs the real ``fuzzfarm`` command in a subprocess against one Redis."""

    def __init__(self, url: str | None, cwd: str):
        self.url = url
        self.cwd = cwd

    def __call__(self, *args: str, timeout: float = 300, env: dict | None = None) -> subprocess.CompletedProcess:
        e = {k: v for k, v in os.environ.items() if k != "FUZZFARM_REDIS_URL"}
        if self.url:
            e["FUZZFARM_REDIS_URL"] = self.url
        e.update(env or {})
        return subprocess.run([sys.executable, "-m", "fuzzfarm.cli", *args], capture_output=True, text=True,
                              timeout=timeout, cwd=self.cwd, env=e)

    def json(self, *args: str, **kw):
        p = self(*args, "--json", **kw)
        assert p.returncode == 0, f"fuzzfarm {' '.join(args)} --json: rc {p.returncode}\n{p.stderr}"
        return json.loads(p.stdout)


@pytest.fixture
def cli(farm, tmp_path):
    return CLI(farm.url, str(tmp_path))
