"""Where the web view may listen and what it may show: a non-loopback --host needs a token;
state-changing routes refuse a request without the right token (tested in test_web_e2e.py on
a real farm); no page and no log line carries the Redis password (a password-protected
redis-server, a bucket with a real artifact of the toy harness)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from webtools import WebServer, get, post

from fuzzfarm.farm.embedded import RedisServer
from fuzzfarm.farm.store import Store

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

PASSWORD = "W3b-Secret-Pw-4417"
TOKEN = "sec-token-8c2f19"


def _web(*args, env=None):
    e = {k: v for k, v in os.environ.items() if k not in ("FUZZFARM_WEB_TOKEN",)}
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "fuzzfarm.cli", "web", *args], capture_output=True, text=True,
                          timeout=60, env=e)


def test_non_loopback_host_without_token_refuses_to_start():
    p = _web("--host", "0.0.0.0", "--port", "1")
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "loopback" in lines[0] and "--token" in lines[0], p.stderr
    assert p.stdout == ""


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10", "example.org"])
def test_only_loopback_is_served_without_a_token(host):
    from fuzzfarm.web.server import ServeError, check_bind
    with pytest.raises(ServeError, match="loopback"):
        check_bind(host, None)
    check_bind(host, "long-enough-token")
    for lo in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        check_bind(lo, None)
    with pytest.raises(ServeError, match="at least 8"):
        check_bind(host, "short")


@pytest.fixture(scope="module")
def secured(tmp_path_factory):
    from farm_fixtures import _need_redis
    _need_redis()
    d = tmp_path_factory.mktemp("webpw")
    srv = RedisServer(str(d / "redis"), password=PASSWORD)
    os.makedirs(srv.workdir, exist_ok=True)
    srv.start()
    st = Store(srv.url)
    cid, bid = _populate(st)
    yield srv, st, cid, bid, d
    st.r.close()
    srv.cleanup()


def _populate(st: Store) -> tuple[str, str]:
    """A campaign with a job, a time series and a bucket whose artifact comes from a real replay."""
    from fuzzfarm import collector
    from fuzzfarm.harness import Target
    engine = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "engine")
    sys.path.insert(0, engine)
    os.environ["PYTHONPATH"] = engine + os.pathsep + os.environ.get("PYTHONPATH", "")
    data = bytes.fromhex("003703e44da7f2370d9e260e27136550a4a3a6d07f5c0c")
    out = collector.replay(Target("toy", "toy_harness"), "buggy", data, trace=True)
    cid = st.create_campaign({"harness": "toy", "variant": "buggy", "jobs": 1, "duration_s": 5, "strategy": "bytes"})
    st.update_job(cid, 0, state="done", execs=10, cov=3, started=1.0, finished=2.0)
    st.record_series(cid, 0, {"execs": 5, "cov": 2})
    bid, *_ = st.create_or_join_bucket(harness="toy", variant="buggy", signature=out["signature"], input_sha256="a" * 64,
                                       fields={"kind": out["kind"], "crash_state": out["crash_state"],
                                               "message": f"redis://:{PASSWORD}@example:6379 must not show"})
    st.mark_intaken(cid, "a" * 64, bid)
    fresh, *_ = st.create_or_join_bucket(harness="toy", variant="buggy", signature="fresh", input_sha256="b" * 64,
                                         fields={"kind": "goroutine panic"})  # just bucketed: no artifact yet
    st.mark_intaken(cid, "b" * 64, fresh)
    st.put_artifact(bid, collector.build_artifact(bucket=st.bucket(bid), original=data, minimized=data, outcome=out,
                                                  harness_hash="h" * 64, version="0"))
    return cid, bid


def test_no_page_and_no_log_line_shows_the_redis_password(secured):
    srv, st, cid, bid, d = secured
    web = WebServer(srv.url, d / "web.log", token=TOKEN)
    try:
        pages = ["/campaigns", "/campaigns/fragment", f"/campaign/{cid}", f"/campaign/{cid}/fragment", "/bugs",
                 "/bugs?harness=toy", f"/bucket/{bid}", "/workers", "/login", "/bucket/nope", "/campaign/nope",
                 "/static/style.css", "/static/live.js"]
        pages += [f"/bucket/{bid}/file/{n}" for n in st.artifact(bid)]
        seen = {}
        for path in pages:
            status, body = get(web.base + path)
            seen[path] = status
            assert PASSWORD.encode() not in body, path
        assert seen[f"/bucket/{bid}"] == 200 and seen["/bucket/nope"] == 404 and seen["/workers"] == 200
        fresh = next(b for b in st.bucket_ids() if b != bid)
        status, body = get(web.base + f"/bucket/{fresh}")
        assert status == 200 and b"no artifact yet" in body
        assert all(v == 200 for k, v in seen.items() if "nope" not in k), seen
        body = get(web.base + f"/bucket/{bid}")[1].decode()
        assert 'class="swimlanes"' in body and "***" in body  # the stored message is shown masked
        for path in (f"/campaign/{cid}/cancel", "/groups/merge"):
            status, text = post(web.base + path, b"group=a&group=b")
            assert status == 403 and PASSWORD not in text
        assert re.search(r"redis://:\*\*\*@127\.0\.0\.1", get(web.base + "/campaigns")[1].decode())
    finally:
        web.stop()
    log = web.log_text()
    assert "fuzzfarm web: http://127.0.0.1:" in log and PASSWORD not in log, log
