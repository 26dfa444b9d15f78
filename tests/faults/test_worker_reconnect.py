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
from fuzzfarm.farm import store as S
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


def test_kombus_reconnect_error_is_one_line_and_exit_75(tmp_path):
    """A Celery worker meeting kombu's reconnect AttributeError (raised by kombu's own code, at
    start-up here: kombu_bug_app.py) logs one line instead of the traceback and exits with 75."""
    from farm_fixtures import _need_redis
    _need_redis()
    os.makedirs(tmp_path / "redis")
    srv = RedisServer(str(tmp_path / "redis")).start()
    env = {**os.environ, "FUZZFARM_REDIS_URL": srv.url, "PYTHONPATH": faultlib.HERE}
    p = subprocess.Popen([sys.executable, "-m", "celery", "-A", "kombu_bug_app", "worker", "-Q", "fuzz", "-c", "1",
                          "--without-mingle", "--without-gossip"], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, cwd=str(tmp_path), start_new_session=True)
    try:
        out, _ = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
    finally:
        srv.stop()
    said = [ln for ln in out.splitlines() if "fuzzfarm worker:" in ln]
    print(f"kombu reconnect bug: exit {p.returncode}: {said}")
    assert p.returncode == reconnect.EXIT_RECONNECT == 75, out[-3000:]
    assert len(said) == 1 and "kombu failed to reconnect to Redis (its reconnect bug, celery/kombu#582)" in said[0]
    assert "Traceback" not in out and "Unrecoverable error" not in out, out[-3000:]
    try:
        None.hostname  # noqa: B018 - the same AttributeError outside kombu is no broker fault
    except AttributeError as e:
        assert reconnect.broker_fault(e) is None
