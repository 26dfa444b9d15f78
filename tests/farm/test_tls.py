"""``rediss://`` works end to end at the connection level: a TLS-only redis-server with a
self-signed CA; the store, the Celery broker and the Celery result backend all connect with
certificate checking on (the CA from the URL's ``ssl_ca_certs``)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from fuzzfarm.farm import config
from fuzzfarm.farm.embedded import LaunchError, RedisServer


def _certs(d):
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    run = lambda *a: subprocess.run(a, cwd=d, check=True, capture_output=True)  # noqa: E731
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=fuzzfarm-test-ca",
        "-keyout", "ca.key", "-out", "ca.pem")
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", "server.key",
        "-out", "server.csr")
    (d / "ext.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    run("openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
        "-days", "2", "-extfile", "ext.cnf", "-out", "server.pem")
    return d / "ca.pem", d / "server.pem", d / "server.key"


@pytest.fixture(scope="module")
def tls_redis(redis_server, tmp_path_factory):
    d = tmp_path_factory.mktemp("tls")
    ca, cert, key = _certs(d)
    srv = RedisServer(str(d), password="tls-pw-5", tls=(str(cert), str(key), str(ca)))
    try:
        srv.start()
    except LaunchError as e:
        pytest.skip(f"this redis-server does not serve TLS: {e}")
    yield srv.url, ca
    srv.stop()


def test_store_over_tls(tls_redis):
    from fuzzfarm.farm.store import Store
    url, _ = tls_redis
    st = Store(url)
    st.ping()
    cid = st.create_campaign({"harness": "h", "variant": "v", "strategy": "bytes", "jobs": 1, "duration_s": 1.0,
                              "harness_hash": "x", "version": "0"})
    assert st.campaign(cid)["harness"] == "h"


def test_celery_broker_and_backend_over_tls(tls_redis):
    from celery import Celery
    url, ca = tls_redis
    app = Celery("tls-test")
    app.conf.update(config.celery_config(url))
    assert app.conf.broker_use_ssl["ssl_ca_certs"] == str(ca)
    app.send_task(config.TASK_INTAKE, args=["c", "h", "v", "sha"], queue="collect-tls-test")
    assert app.backend.client.ping()
    assert app.backend.client.llen("collect-tls-test") == 1


def test_tls_with_an_unknown_ca_is_refused(tls_redis):
    from fuzzfarm.farm.store import Store, StoreError
    url, _ = tls_redis
    with pytest.raises(StoreError) as e:
        Store(url.split("?")[0]).ping()  # system CAs only: the self-signed server is not trusted
    assert "tls-pw-5" not in str(e.value)


def test_configure_from_tls_back_to_plain_redis_publishes_in_plain(tls_redis, redis_server):
    """A process that published over TLS and then configures a plain ``redis://`` URL publishes
    there in plain TCP: no TLS setting of the first URL stays behind in the Celery app (it did,
    and every publish to the plain Redis then failed its TLS handshake)."""
    import redis

    from fuzzfarm.farm import app, configure
    url, _ = tls_redis
    before = os.environ.get("FUZZFARM_REDIS_URL")
    plain = redis.Redis.from_url(redis_server.url)
    try:
        configure(url)
        app.send_task(config.TASK_INTAKE, args=["c", "h", "v", "sha"], queue="collect-tls-then-plain")
        configure(redis_server.url)
        assert not app.conf.broker_use_ssl and not app.conf.redis_backend_use_ssl
        app.send_task(config.TASK_INTAKE, args=["c", "h", "v", "sha"], queue="collect-tls-then-plain")
        assert plain.llen("collect-tls-then-plain") == 1
    finally:
        plain.delete("collect-tls-then-plain")
        plain.close()
        if before is None:
            os.environ.pop("FUZZFARM_REDIS_URL", None)
        else:
            configure(before)
