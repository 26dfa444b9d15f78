"""A worker started by ``fuzzfarm worker`` (the README's command for one machine, no service
manager) stays able to take jobs after a Redis restart and after a 10 s outage: a Celery worker that
exits meanwhile (kombu's reconnect bug, farm/reconnect.py; the watchdog) is started again by
``fuzzfarm worker`` itself (farm/split_worker.py with the supervisor's restart policy)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import faultlib
from fuzzfarm import store as S
from fuzzfarm.farm import reconnect
from fuzzfarm.farm.embedded import RedisServer

BOUND_S = 60.0


def _job_done(st) -> float:
    t0 = time.monotonic()
    cid = None
    for _ in range(60):  # the submitter may meet Redis still loading its AOF
        try:
            cid = faultlib.submit(st, "ff-crashy", "fixed", jobs=1, duration=1)
            break
        except Exception:  # noqa: BLE001
            time.sleep(0.5)
    assert cid
    faultlib.wait_until(lambda: faultlib.campaign_final(st, cid), BOUND_S, "the job to finish")
    assert st.job(cid, 0)["state"] == S.JOB_DONE
    return time.monotonic() - t0


def _celery_children(pid: int) -> list[int]:
    return [p for p in faultlib.worker_pool_children(pid) if "celery" in faultlib.cmdline(p)]


def test_fuzzfarm_worker_keeps_taking_jobs_across_redis_restart_and_outage(tmp_path):
    from farm_fixtures import _need_redis
    _need_redis()
    os.makedirs(tmp_path / "redis")
    srv = RedisServer(str(tmp_path / "redis")).start()
    log = open(tmp_path / "worker.log", "wb")
    env = {**os.environ, **faultlib.worker_env(FUZZFARM_WATCHDOG_INTERVAL_S="2"), "FUZZFARM_REDIS_URL": srv.url,
           "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "fuzzfarm.cli", "worker", "-c", "1"], env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        with faultlib.publishing_to(srv.url) as st:
            faultlib.wait_until(lambda: (tmp_path / "worker.log").read_bytes().count(b" ready.") >= 2, 90,
                                "both Celery workers ready")
            first = _job_done(st)
            srv.stop()
            srv.start()
            after_restart = _job_done(st)
            srv.stop()
            time.sleep(10)  # the outage itself (what is measured is after it)
            srv.start()
            after_outage = _job_done(st)
            # and when a Celery worker exits (as kombu's reconnect bug makes it), it is started again
            victim = _celery_children(proc.pid)[0]
            os.kill(victim, signal.SIGKILL)
            faultlib.wait_until(lambda: victim not in _celery_children(proc.pid) and len(_celery_children(proc.pid)) == 2,
                                60, "fuzzfarm worker to start the killed worker again")
            after_exit = _job_done(st)
            text = (tmp_path / "worker.log").read_text(errors="replace")
            print(f"fuzzfarm worker: jobs done in {first:.1f} s; after a Redis restart {after_restart:.1f} s; after a "
                  f"10 s outage {after_outage:.1f} s; after a worker exit {after_exit:.1f} s; restarts by fuzzfarm "
                  f"worker: {text.count('restarting it') + text.count('starting it again')}; exits 75: "
                  f"{text.count('exiting with status 75') + text.count('exit 75')}")
            assert proc.poll() is None, text[-3000:]
    finally:
        os.killpg(proc.pid, signal.SIGQUIT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()
        srv.stop()


def test_kombus_reconnect_error_is_a_broker_fault():
    """The AttributeError kombu raises when it reconnects a channel whose connection is gone
    (celery/kombu#582) is recognised as a broker fault (exit 75); an AttributeError elsewhere is not."""
    from kombu import Connection

    conn = Connection("redis://127.0.0.1:1/0")
    ch = conn.transport.Channel.__new__(conn.transport.Channel)  # no connect: what close() meets
    ch.connection = type("C", (), {"client": None})()
    try:
        ch._connparams()
    except AttributeError as e:
        assert "'NoneType' object has no attribute" in str(e)
        assert reconnect.broker_fault(e) and "kombu" in reconnect.broker_fault(e)
    else:
        raise AssertionError("kombu's _connparams no longer fails on a closed connection")
    try:
        None.hostname  # noqa: B018 - an AttributeError outside kombu
    except AttributeError as e:
        assert reconnect.broker_fault(e) is None
