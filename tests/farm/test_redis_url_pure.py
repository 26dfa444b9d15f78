"""The farm's Redis URL comes from what it is given, never from a look around the machine (issue
32): a fleet worker started with no $FUZZFARM_REDIS_URL on a box where `fuzzfarm up` runs serves
the default Redis, not the local farm's; the CLI alone falls back to the local farm."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

LOCAL_URL = "redis://:secret-of-the-local-farm@127.0.0.1:16999/0"


@pytest.fixture
def local_farm_up(tmp_path):
    """The state `fuzzfarm up` leaves for this installation: farm.json naming its URL and a live
    supervisor process (a real process whose command line names the supervisor module)."""
    from fuzzfarm.farm import local

    env = {k: v for k, v in os.environ.items() if k not in ("FUZZFARM_REDIS_URL", local.FARM_ENV)}
    env["XDG_DATA_HOME"] = str(tmp_path)
    sup = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", local.SUPERVISOR_MODULE])
    try:
        d = subprocess.run([sys.executable, "-c", "from fuzzfarm.farm import local; print(local.farm_dir())"],
                           env=env, capture_output=True, text=True, check=True).stdout.strip()
        os.makedirs(d)
        with open(os.path.join(d, local.STATE), "w") as f:
            json.dump({"url": LOCAL_URL, "status": "up", "supervisor_pid": sup.pid}, f)
        yield env
    finally:
        sup.kill()
        sup.wait()


def _run(code: str, env: dict) -> str:
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout.strip()


def test_a_worker_without_the_variable_does_not_take_the_local_farm(local_farm_up):
    from fuzzfarm.farm import redis_url

    # what `celery -A fuzzfarm.farm worker` builds its broker from
    got = _run("from fuzzfarm.farm import celery_app; print(celery_app.app.conf.broker_url)", local_farm_up)
    assert got == redis_url.DEFAULT_URL
    assert _run("from fuzzfarm.farm import redis_url; print(redis_url.from_env())", local_farm_up) == redis_url.DEFAULT_URL


def test_the_cli_still_finds_the_local_farm(local_farm_up):
    assert _run("from fuzzfarm.cli import _app; print(_app._url())", local_farm_up) == LOCAL_URL
