"""Security tests: a password-protected redis-server, over TLS (``rediss://``, a private CA made
with openssl) when this redis-server build serves TLS, else plain ``redis://``; real fuzz and
collect worker processes that also see the test-only harnesses (tests/faults/site)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "faults"))

import faultlib  # noqa: E402

from farm_fixtures import _need_redis  # noqa: E402
from fuzzfarm.farm.embedded import Farm, LaunchError, RedisServer  # noqa: E402

PASSWORD = "Sec-Pw-6f2c1e9a-never-shown"


def _certs(d) -> tuple[str, str, str] | None:
    if shutil.which("openssl") is None:
        return None
    run = lambda *a: subprocess.run(a, cwd=d, check=True, capture_output=True)  # noqa: E731
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=fuzzfarm-sec-ca",
        "-keyout", "ca.key", "-out", "ca.pem")
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", "server.key",
        "-out", "server.csr")
    with open(os.path.join(d, "ext.cnf"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    run("openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
        "-days", "2", "-extfile", "ext.cnf", "-out", "server.pem")
    return tuple(os.path.join(d, n) for n in ("server.pem", "server.key", "ca.pem"))


@pytest.fixture(scope="package")
def secure_redis(tmp_path_factory):
    """(RedisServer, "tls" | "plain"): password always; TLS when this redis-server has it."""
    _need_redis()
    d = str(tmp_path_factory.mktemp("secredis"))
    tls = _certs(d)
    srv = None
    if tls:
        srv = RedisServer(os.path.join(d, "data"), password=PASSWORD, tls=tls)
        os.makedirs(srv.workdir, exist_ok=True)
        try:
            srv.start()
        except LaunchError:
            srv.cleanup()
            srv = None
    mode = "tls" if srv else "plain"
    if srv is None:
        srv = RedisServer(os.path.join(d, "data"), password=PASSWORD)
        os.makedirs(srv.workdir, exist_ok=True)
        srv.start()
    yield srv, mode
    srv.cleanup()


@pytest.fixture(scope="package")
def secure_farm(secure_redis, tmp_path_factory):
    """Workers (fuzz -c 2, collect -c 1) on the password-protected (TLS) Redis."""
    srv, mode = secure_redis
    f = Farm(srv.url, workdir=str(tmp_path_factory.mktemp("secfarm")), fuzz_concurrency=2, collect_concurrency=1,
             worker_env=faultlib.worker_env())
    f.start()
    f.mode = mode
    yield f
    for w in f.workers:  # idle by now; SIGQUIT stops are tested in test_fleet_restart.py
        faultlib.hard_stop(w)
    f.stop()
    for w in f.workers:
        assert not w.alive()
    faultlib.assert_no_fuzzers_left()


@pytest.fixture
def sst(secure_farm):
    with faultlib.publishing_to(secure_farm.url) as st:
        yield st
