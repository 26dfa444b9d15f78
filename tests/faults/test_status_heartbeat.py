"""``fuzzfarm status`` is true during a lease window: while a lost box's lease runs out (here its
whole process tree SIGKILLed, lease 20 s so the window is long), the job it ran is never shown as
plainly ``running`` with its frozen counters: the state says ``running on box-a@… — no heartbeat
for N s`` until the janitor requeues it (farm/lease.py ``state_label``)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys

import faultlib
from fuzzfarm.farm.embedded import Worker


def _status(url: str, cid: str) -> str:
    out = subprocess.run([sys.executable, "-m", "fuzzfarm.cli", "status", cid, "--wide"], capture_output=True,
                         text=True, timeout=60, env={**os.environ, "FUZZFARM_REDIS_URL": url, "COLUMNS": "400"})
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_status_during_box_loss_says_the_heartbeat_is_missing(fault_farm, tmp_path):
    url = fault_farm.url.rsplit("/", 1)[0] + "/5"  # a database of its own: box-a is its only worker
    env = faultlib.worker_env(FUZZFARM_MAX_SLICE_S="30", FUZZFARM_VISIBILITY_TIMEOUT="300",
                              FUZZFARM_LEASE_TTL_S="20", FUZZFARM_JANITOR_INTERVAL_S="1")
    with faultlib.publishing_to(url) as st:
        st.r.flushdb()
        a = Worker(url, ["fuzz"], env=env, logfile=str(tmp_path / "a.log"), name="box-a").start()
        try:
            a.wait_ready()
            cid = faultlib.submit(st, "ff-crashy", "buggy", jobs=1, duration=20)
            faultlib.wait_until(lambda: int(st.job(cid, 0).get("execs", 0) or 0) > 0, 60, "the job fuzzing on box a")
            live = _status(url, cid)
            assert "no heartbeat" not in live, live
            os.killpg(a.proc.pid, signal.SIGKILL)
            # status says the heartbeat is missing (three missed ticks, 6 s, into the 20 s lease window)
            def said():
                t = _status(url, cid)
                return t if "no heartbeat for" in t else None
            # (no janitor serves this database: the job stays running, so the wait is bounded generously)
            text = faultlib.wait_until(said, 40, "status to say the heartbeat is missing")
            assert re.search(r"running on box-a@\S+ — no heartbeat for \d+ s", text), text
            # every status read before the janitor's takeover either says so or is within a tick
            assert st.job(cid, 0).get("state") == "running"
            print(f"status during box loss: {re.search(r'running on .*? s', text).group(0)}")
        finally:
            faultlib.hard_stop(a)
