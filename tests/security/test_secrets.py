"""The Redis password never shows, on a farm that has done real work over a password-protected
(TLS when available) Redis: not in worker logs, not in anything stored in Redis (job records,
crash log tails, buckets, artifacts), not in CLI output or errors (including a wrong password),
not in ``celery inspect stats`` / ``inspect conf`` / ``celery report`` (celery #9563), not in
a worker's command line, and never inside a harness process: ``ff-env`` puts its whole
environment into its crash message, which travels everywhere a crash goes.

(tests/e2e/test_password_e2e.py checks an idle ``fuzzfarm worker`` the same way.)"""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

import faultlib
from fuzzfarm.farm import store as S
from fuzzfarm.farm import redis_url
from fuzzfarm.farm.embedded import Worker

PASSWORD = "Sec-Pw-6f2c1e9a-never-shown"  # tests/security/conftest.py starts Redis with it


@pytest.fixture(autouse=True)
def _same_password(secure_redis):
    assert secure_redis[0].password == PASSWORD


def _clean(text: str, where: str, *, env_name: bool = False) -> None:
    """No password in ``text``; with ``env_name`` not even the variable that holds the URL (a
    harness's environment)."""
    assert PASSWORD not in text, f"the password shows in {where}"
    if env_name:
        assert redis_url.ENV not in text, f"${redis_url.ENV} reached {where}"


def _run(args: list[str], url: str, cwd, env_extra: dict | None = None, timeout: float = 90):
    env = {**os.environ, redis_url.ENV: url, "PYTHONPATH": faultlib.WORKER_ENV["PYTHONPATH"], "COLUMNS": "200",
           **(env_extra or {})}
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd=str(cwd), env=env)


def _redis_dump(st) -> str:
    out = []
    for k in st.r.scan_iter(count=1000):
        t = st.r.type(k)
        if t == "string":
            v = st.r.get(k)
        elif t == "hash":
            v = st.r.hgetall(k)
        elif t == "set":
            v = st.r.smembers(k)
        elif t == "zset":
            v = st.r.zrange(k, 0, -1, withscores=True)
        elif t == "list":
            v = st.r.lrange(k, 0, -1)
        else:
            v = t
        out.append(f"{k} {v!r}")
    return "\n".join(out)


@pytest.fixture(scope="module")
def worked(secure_farm):
    """Campaigns that leaked their environment into crashes, fully triaged."""
    with faultlib.publishing_to(secure_farm.url) as st:
        cid = faultlib.submit(st, "ff-env", duration=3)
        faultlib.wait_until(lambda: faultlib.campaign_settled(st, cid), 120, "the ff-env campaign to settle")
        assert st.campaign_summary(cid)["buckets"] == 1
        yield st, cid


def test_harness_processes_never_get_the_credentials(worked):
    st, cid = worked
    crashes = [st.crash("ff-env", "buggy", sha) for sha in st.r.smembers(S.P + f"campaign:{cid}:crashes")]
    assert crashes and any("ff-env: environment" in (c.get("log_tail") or "") for c in crashes), \
        "the harness's environment did not reach the crash log: the test proves nothing"
    for c in crashes:
        _clean(c.get("log_tail") or "", "a harness's crash log tail", env_name=True)
    (bid,) = st.campaign_bucket_ids(cid)
    b = st.bucket(bid)
    assert "ff-env: environment" in b["message"]  # the collector's replay's environment, too
    _clean(repr(b), "the bucket record", env_name=True)
    for name, data in st.artifact(bid).items():
        _clean(data.decode("utf-8", "replace"), f"artifact file {name}", env_name=True)


def test_nothing_stored_in_redis_holds_the_password(worked):
    st, _ = worked
    dump = _redis_dump(st)
    assert "fuzzfarm:bucket:" in dump
    _clean(dump, "Redis")


def test_worker_logs_and_command_lines(worked, secure_farm):
    for w in secure_farm.workers:
        with open(w.logfile, errors="replace") as f:  # the raw file, not the masked view
            text = f.read()
        assert "Connected to rediss://:**@" in text or "Connected to redis://:**@" in text
        _clean(text, f"{w.name}'s log")
        assert PASSWORD not in faultlib.cmdline(w.proc.pid)
        for child in faultlib.worker_pool_children(w.proc.pid):
            assert PASSWORD not in faultlib.cmdline(child)


def test_cli_output_and_downloads(worked, secure_farm, tmp_path):
    st, cid = worked
    (bid,) = st.campaign_bucket_ids(cid)
    py = [sys.executable, "-m", "fuzzfarm.cli"]
    for args in (["status", cid], ["crashes", "--json"], ["download", bid, "-o", str(tmp_path / "r")],
                 ["replay", str(tmp_path / "r")]):
        p = _run(py + args, secure_farm.url, tmp_path)
        assert p.returncode in (0, 1), (args, p.stderr[-1500:])
        _clean(p.stdout + p.stderr, f"`fuzzfarm {' '.join(args)}`")
    # the local replay's own harness process got no credentials either
    assert "ff-env: environment" in p.stdout
    _clean(p.stdout, "a local replay's harness process", env_name=True)
    for f in os.listdir(tmp_path / "r"):
        _clean((tmp_path / "r" / f).read_bytes().decode("utf-8", "replace"), f"downloaded {f}", env_name=True)


def test_errors_with_a_wrong_password_hide_both(secure_farm, tmp_path):
    wrong = secure_farm.url.replace(PASSWORD, "Wrong-Pw-77a1")
    p = _run([sys.executable, "-m", "fuzzfarm.cli", "status"], wrong, tmp_path)
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert p.returncode == 2 and len(lines) == 1 and "password" in lines[0], p.stderr
    assert "Wrong-Pw-77a1" not in p.stderr + p.stdout
    _clean(p.stderr + p.stdout, "the CLI's error")
    # a worker started with a wrong password: its retry errors hide it too
    w = Worker(wrong, ["fuzz"], logfile=str(tmp_path / "wrong.log"), env=faultlib.worker_env()).start()
    try:
        faultlib.wait_until(lambda: "ERROR" in (tmp_path / "wrong.log").read_text(errors="replace"), 30,
                            "the worker to log its connection error")
    finally:
        w.stop(timeout=1)  # it only retries its connection: no need to wait for a cold shutdown
    text = (tmp_path / "wrong.log").read_text(errors="replace")
    assert "Wrong-Pw-77a1" not in text, text[-2000:]
    _clean(text, "the log of a worker with a wrong password")


@pytest.mark.parametrize("cmd", [["inspect", "stats"], ["inspect", "conf"], ["report"]])
def test_celery_inspect_and_report(worked, secure_farm, tmp_path, cmd):
    fuzz = secure_farm.workers[0]
    args = [sys.executable, "-m", "celery", "-A", "fuzzfarm.farm", *cmd]
    if cmd[0] == "inspect":
        args += ["--json", "-t", "10", "-d", f"{fuzz.name}@{socket.gethostname()}"]
    p = _run(args, secure_farm.url, tmp_path, timeout=60)
    assert p.returncode == 0, p.stderr[-2000:]
    if cmd == ["inspect", "stats"]:
        assert '"broker"' in p.stdout and "visibility_timeout" in p.stdout  # transport options are shown ...
    _clean(p.stdout + p.stderr, f"`celery {' '.join(cmd)}`")  # ... without the password


@pytest.mark.parametrize("url,secret", [
    ("redis://:s3cr3t/PW@127.0.0.1:18800/0", "s3cr3t/PW"),      # a / in the password (not a valid URL)
    ("redis://:pw#x?yz@127.0.0.1:1/0", "pw#x?yz"),               # # and ? in the password
    ("redis://s3cr3tPW@127.0.0.1/0", "s3cr3tPW"),                # a lone user name: redis-py sends it as AUTH
    ("redis://127.0.0.1:18800/0?password=s3cr3tPW", "s3cr3tPW"),  # the password as a query parameter
    ("redis://user:pa:ss@127.0.0.1:6379/0", "pa:ss"),
])
def test_every_password_form_is_masked(url, secret):
    from fuzzfarm.farm import redis_url
    assert secret not in redis_url.mask(url)
    said = f"cannot reach {url}; port {url.rsplit(':', 1)[-1]!r} as {secret!r}"
    assert secret not in redis_url.mask_text(said, url)
