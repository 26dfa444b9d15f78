"""``fuzzfarm web`` beside a local farm (``fuzzfarm up``) that already serves the web view: it says
so with the URL and exits 0, where asked for no port or the farm's; on a port something else
holds it is one line, exit 2, and no URL printed as if it served. The farm's own web view (which
the supervisor starts as ``fuzzfarm web --port P``) still starts, and restarts when it dies."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def _ff(env, *args, timeout=120):
    return subprocess.run([sys.executable, "-m", "fuzzfarm.cli", *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


def _serves(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "campaigns", timeout=5) as page:
            return page.status == 200
    except OSError:
        return False


def test_web_says_the_farm_serves_it(tmp_path):
    from farm_fixtures import _need_redis
    _need_redis()
    env = {k: v for k, v in os.environ.items() if k != "FUZZFARM_REDIS_URL"}
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    up = _ff(env, "up", "--json", "-c", "1", "--collect-concurrency", "1")
    assert up.returncode == 0, up.stderr
    try:
        farm_web = json.loads(up.stdout)["web"]
        port = int(farm_web.rsplit(":", 1)[1].strip("/"))
        deadline = time.monotonic() + 60  # `up` returns once the workers run; the view starts beside them
        while not _serves(farm_web) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _serves(farm_web)
        for args in ((), ("--port", str(port))):
            p = _ff(env, "web", *args, timeout=60)
            assert p.returncode == 0, p.stdout + p.stderr
            assert f"already serves the web view of this Redis at {farm_web}" in p.stdout, p.stdout
        # a port another program holds: one line, exit 2, and no URL announced before it
        with socket.socket() as other:
            other.bind(("127.0.0.1", 0))
            other.listen()
            taken = other.getsockname()[1]
            p = _ff(env, "web", "--port", str(taken), timeout=60)
        assert p.returncode == 2 and p.stderr.count("\n") == 1 and "choose another --port" in p.stderr, p.stderr
        assert "http://" not in p.stdout + p.stderr
        # the farm's own web view, killed, is started again by the supervisor and serves (its
        # `fuzzfarm web --port P` is not taken for a second one)
        state = Path(json.loads(up.stdout)["dir"]) / "farm.json"
        web_pid = next(s["pid"] for s in json.loads(state.read_text())["services"] if s.get("url"))
        os.kill(web_pid, signal.SIGKILL)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            svc = next(s for s in json.loads(state.read_text())["services"] if s.get("url"))
            if svc["pid"] != web_pid and _serves(farm_web):
                break
            time.sleep(0.5)
        assert svc["pid"] != web_pid and _serves(farm_web), svc
    finally:
        down = _ff(env, "down")
    assert down.returncode == 0, down.stderr
