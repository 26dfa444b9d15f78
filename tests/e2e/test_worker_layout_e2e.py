"""The default ``fuzzfarm worker`` layout on a real redis-server, and campaign control.

* ``fuzzfarm worker`` (both queues) runs a fuzz and a separate collect worker: the first
  verified reproducer of a checker campaign arrives while its jobs are still fuzzing (one
  worker on ``fuzz,collect`` gave every process to the fuzz jobs, and triage waited for them);
* every worker is its own node: ``celery inspect ping`` counts the pair plus a second
  ``fuzzfarm worker -Q fuzz`` on the same host as three nodes;
* ``fuzzfarm cancel`` stops the running jobs within seconds, keeps the buckets, and the
  campaign ends ``cancelled``; Ctrl-C in ``submit --wait`` says the campaign goes on.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from fuzzfarm.farm.embedded import RedisServer
from fuzzfarm.farm.store import Store

# slow tier (about 100 s): the default layout triaging while jobs fuzz; CI keeps the demo e2e and
# the farm e2e, which run on the same two-worker layout
pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(300)]

# short triage (the verdicts themselves are tested elsewhere): what counts here is when it happens
ENV = {"FUZZFARM_MINIMIZE_BUDGET_S": "2", "FUZZFARM_VERIFY_RUNS": "3", "FUZZFARM_TIMEOUT_S": "10"}


def _cli(url, cwd, *args, timeout=60):
    env = {**os.environ, **ENV, "FUZZFARM_REDIS_URL": url}
    return subprocess.run([sys.executable, "-m", "fuzzfarm.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=timeout)


def _until(pred, timeout, what, step=0.3):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(step)
    pytest.fail(f"not within {timeout} s: {what}")


def test_default_worker_triages_while_fuzzing_and_cancel_keeps_the_finds(tmp_path):
    from farm_fixtures import _need_redis
    _need_redis()
    (tmp_path / "redis").mkdir()
    srv = RedisServer(str(tmp_path / "redis")).start()
    env = {**os.environ, **ENV, "FUZZFARM_REDIS_URL": srv.url}
    logs = [open(tmp_path / f"w{i}.log", "wb") for i in range(2)]
    workers = [subprocess.Popen([sys.executable, "-m", "fuzzfarm.cli", "worker", "-c", "2"], env=env,
                                stdout=logs[0], stderr=subprocess.STDOUT, start_new_session=True),
               subprocess.Popen([sys.executable, "-m", "fuzzfarm.cli", "worker", "-Q", "fuzz", "-c", "1"], env=env,
                                stdout=logs[1], stderr=subprocess.STDOUT, start_new_session=True)]
    st = Store(srv.url)
    try:
        # 3 jobs: as many as the processes that may fuzz (fuzz -c 2, plus the -Q fuzz -c 1 worker)
        cid = _cli(srv.url, tmp_path, "submit", "checker", "--jobs", "3", "--duration", "300").stdout.strip()

        def verified():
            done = [b for b in map(st.bucket, st.campaign_bucket_ids(cid))
                    if b and b.get("state") == "done" and b.get("reproducible")]
            return (done, [j.get("state") for j in st.jobs(cid)]) if done else None
        t_submit = time.monotonic()
        done, states = _until(verified, 240, "a verified reproducer")  # long before the jobs' 300 s end
        print(f"first verified reproducer {time.monotonic() - t_submit:.1f} s after submit; jobs {states}")
        assert "running" in states, f"the first verified reproducer came only after fuzzing: {states}"
        assert done[0].get("verify_ok") == done[0].get("verify_n") == 3

        p = _cli(srv.url, tmp_path, "cancel", cid)  # waits up to 30 s for the running jobs to stop
        assert p.returncode == 0 and "cancelled" in p.stdout, p.stdout + p.stderr
        assert [j["state"] for j in st.jobs(cid)] == ["cancelled"] * 3
        kept = set(st.campaign_bucket_ids(cid))
        assert {b["id"] for b in done} <= kept
        s = st.campaign_summary(cid)
        assert s["status"] == "cancelled" and s["buckets"] >= len(done) and s["execs"] > 0  # finished, finds kept

        # every worker its own node (checked after the timing, so that a one-worker layout fails there)
        def ping():
            p = subprocess.run([sys.executable, "-m", "celery", "-A", "fuzzfarm.farm", "inspect", "ping", "-t", "2"],
                               capture_output=True, text=True, env=env, timeout=60)
            return p.stdout if "3 nodes online" in p.stdout else None
        pong = _until(ping, 90, "three worker nodes answering `celery inspect ping`", step=1)
        assert sum(line.strip().startswith("->") for line in pong.splitlines()) == 3, pong

        # Ctrl-C in submit --wait: the campaign goes on, and the user is told how to watch / cancel
        w = subprocess.Popen([sys.executable, "-m", "fuzzfarm.cli", "submit", "checker", "--duration", "60", "--wait"],
                             env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        cid2 = _until(lambda: next(iter(set(st.campaign_ids()) - {cid}), None), 30, "the second campaign")
        time.sleep(1.5)
        w.send_signal(signal.SIGINT)
        _, errs = w.communicate(timeout=30)
        assert w.returncode == 130, errs
        assert f"campaign {cid2} goes on" in errs and f"fuzzfarm cancel {cid2}" in errs, errs
        assert "Traceback" not in errs
        assert st.campaign_summary(cid2)["status"] in ("queued", "running")
        assert _cli(srv.url, tmp_path, "cancel", cid2).returncode == 0
        assert st.campaign_summary(cid2)["status"] == "cancelled"
    finally:
        for w in workers:
            if w.poll() is None:
                w.send_signal(signal.SIGTERM)  # fuzzfarm worker hands it to both its workers
        for w in workers:
            try:
                w.wait(40)
            except subprocess.TimeoutExpired:
                pass
            try:
                os.killpg(w.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for f in logs:
            f.close()
        st.r.close()
        srv.cleanup()
    assert all(w.returncode is not None for w in workers)
