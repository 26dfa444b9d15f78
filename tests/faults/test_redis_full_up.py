"""A full Redis is weather, not death, for ``fuzzfarm up``: with Redis at ``maxmemory`` under
``noeviction`` the local farm's workers exit with one line and status 75 (farm/reconnect.py) and
its supervisor starts them again with a backoff and never gives up on them (farm/supervisor.py
``keep_up``); once memory is freed the farm takes the next job within 60 s with no ``down``/``up``.

(In this environment the workers met the refusal without exiting: Celery logs each refused timer
write; the policy for workers that do exit, as in the issue's measurement, is
``test_supervisor_policy.py``.)"""

from __future__ import annotations

import re
import time

import pytest
import redis

import faultlib
from farm_fixtures import _need_redis
from fuzzfarm.farm import store as S
from fuzzfarm.farm import local

BOUND_S = 60.0


def _exits(log: str) -> int:
    return len(re.findall(r"worker-\S+ (?:exited with status 75|died)", log))


def _job(st, bound: float) -> float:
    t0 = time.monotonic()
    cid = faultlib.submit(st, "ff-crashy", "fixed", jobs=1, duration=1)
    faultlib.wait_until(lambda: faultlib.campaign_final(st, cid), bound, "the job to finish")
    assert st.job(cid, 0)["state"] == S.JOB_DONE
    return time.monotonic() - t0


@pytest.mark.slow  # ~40 s; the default tier keeps test_supervisor_policy.py (the policy, real processes)
def test_a_full_redis_under_up_then_freed_the_farm_takes_the_next_job(tmp_path, monkeypatch):
    _need_redis()
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("FUZZFARM_REDIS_URL", raising=False)
    state = local.start(fuzz_concurrency=1, collect_concurrency=1,
                        env=faultlib.worker_env(FUZZFARM_WATCHDOG_INTERVAL_S="2"))
    sup_log = tmp_path / "data" / "fuzzfarm" / "farm" / "supervisor.log"
    filled = 0
    try:
        with faultlib.publishing_to(state["url"]) as st:
            _job(st, BOUND_S)
            st.r.config_set("maxmemory-policy", "noeviction")
            st.r.config_set("maxmemory", int(st.r.info("memory")["used_memory"]) + 2_000_000)
            try:
                while True:
                    st.r.set(f"filler:{filled}", "x" * 200_000)
                    filled += 1
            except redis.exceptions.OutOfMemoryError:
                pass
            st.r.config_set("maxmemory", int(st.r.info("memory")["used_memory"]) - 1_000_000)
            t_full = time.monotonic()
            # the workers meet the refusal (their Celery timers, the pidbox binding refresh); the
            # fault lasts 30 s (its duration, not a wait for a result): long enough for the watchdog
            # (2 s x 3 misses) and the supervisor's backoff to act if they exit
            logs = tmp_path / "data" / "fuzzfarm" / "farm"
            faultlib.wait_until(lambda: any("OutOfMemoryError" in p.read_text(errors="replace")
                                            for p in logs.glob("worker-*.log")), 60, "the workers to meet the refusal")
            time.sleep(max(0.0, 30 - (time.monotonic() - t_full)))
            full_s = time.monotonic() - t_full
            st.r.delete(*[f"filler:{j}" for j in range(filled)])  # memory freed
            st.r.config_set("maxmemory", 0)
            took = _job(st, BOUND_S + 30)
            log = sup_log.read_text(errors="replace")
            print(f"redis full {full_s:.0f} s under up: {_exits(log)} worker exits "
                  f"({log.count('exited with status 75')} with 75), next job done {took:.1f} s after memory was "
                  f"freed; left stopped: {log.count('left stopped')}")
            assert "left stopped" not in log, log[-3000:]
            assert took < BOUND_S
    finally:
        local.stop()
