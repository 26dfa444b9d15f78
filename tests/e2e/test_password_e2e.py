"""A password-protected redis-server: the password never shows in worker logs, in what
``celery inspect stats`` reports (celery #9563), or in CLI output and errors. The worker is
started with ``fuzzfarm worker`` (the thin wrapper over ``celery -A fuzzfarm.farm worker``)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from fuzzfarm.farm.embedded import RedisServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

PASSWORD = "S3cret-e2e-Pw-93"


@pytest.fixture(scope="module")
def secured(tmp_path_factory):
    from farm_fixtures import _need_redis
    _need_redis()
    d = tmp_path_factory.mktemp("pw")
    srv = RedisServer(str(d / "redis"), password=PASSWORD)
    os.makedirs(srv.workdir, exist_ok=True)
    srv.start()
    log = open(d / "worker.log", "wb")
    env = {**os.environ, "FUZZFARM_REDIS_URL": srv.url, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "fuzzfarm.cli", "worker", "-Q", "collect", "-c", "1",
                             "-n", "pwtest"], env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 60
    while b" ready." not in (d / "worker.log").read_bytes():
        assert proc.poll() is None, (d / "worker.log").read_text()
        assert time.monotonic() < deadline, (d / "worker.log").read_text()
        time.sleep(0.1)
    yield srv, proc, d / "worker.log"
    os.kill(proc.pid, signal.SIGQUIT)
    try:
        proc.wait(20)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        log.close()
        srv.cleanup()


def _run(args, url, **kw):
    env = {**os.environ, "FUZZFARM_REDIS_URL": url, "COLUMNS": "200"}
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=60, **kw)


def test_worker_stats_and_logs_hide_the_password(secured):
    srv, proc, log = secured
    p = _run([sys.executable, "-m", "celery", "-A", "fuzzfarm.farm", "inspect", "stats", "--json", "-t", "10",
              "-d", f"pwtest@{socket.gethostname()}"], srv.url)
    assert p.returncode == 0, p.stderr
    assert "pwtest@" in p.stdout and '"broker"' in p.stdout
    assert "visibility_timeout" in p.stdout  # the transport options are there, without any password
    assert PASSWORD not in p.stdout + p.stderr
    p = _run([sys.executable, "-m", "celery", "-A", "fuzzfarm.farm", "inspect", "conf", "--json", "-t", "10",
              "-d", f"pwtest@{socket.gethostname()}"], srv.url)
    assert p.returncode == 0 and PASSWORD not in p.stdout + p.stderr
    text = log.read_text()
    assert "redis://:**@127.0.0.1" in text and PASSWORD not in text


def test_cli_output_and_errors_hide_the_password(secured):
    srv, _, _ = secured
    for args in (["status"], ["status", "--json"], ["crashes"]):  # (`harnesses` never reads Redis, and costs 3 s)
        p = _run([sys.executable, "-m", "fuzzfarm.cli", *args], srv.url)
        assert p.returncode == 0, p.stderr
        assert PASSWORD not in p.stdout + p.stderr
    wrong = srv.url.replace(PASSWORD, "Not-The-Pw-77")
    p = _run([sys.executable, "-m", "fuzzfarm.cli", "status"], wrong)
    assert p.returncode == 2 and "password" in p.stderr
    assert "Not-The-Pw-77" not in p.stderr + p.stdout and PASSWORD not in p.stderr
    p = _run([sys.executable, "-m", "fuzzfarm.cli", "download", "bnothere", "-o", "x"], srv.url)
    assert p.returncode == 2 and "unknown bucket" in p.stderr and PASSWORD not in p.stderr
