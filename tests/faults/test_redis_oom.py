"""Redis full (``maxmemory`` + ``noeviction``): the submitter gets one clear line; a fuzz worker
that cannot write a crash keeps it on its disk (``fuzzfarm/farm/spool.py``), goes on fuzzing, and
reports it once memory is freed: no crash lost. A Redis server of its own (maxmemory is per server)."""

from __future__ import annotations

import os
import subprocess
import sys

import redis

import faultlib
from farm_fixtures import _need_redis
from fuzzfarm.farm import store as S
from fuzzfarm.farm.embedded import RedisServer, Worker

DURATION_S = 16.0


def test_a_full_redis_loses_no_crash_and_the_submitter_gets_one_line(tmp_path):
    _need_redis()
    (tmp_path / "redis").mkdir()
    srv = RedisServer(str(tmp_path / "redis")).start()
    spool_dir = tmp_path / "spool"
    env = faultlib.worker_env(FUZZFARM_MAX_SLICE_S="30", FUZZFARM_VISIBILITY_TIMEOUT="60",
                              FUZZFARM_SPOOL_DIR=str(spool_dir))
    w = None
    try:
        with faultlib.publishing_to(srv.url) as st:
            w = Worker(srv.url, ["fuzz"], env=env, logfile=str(tmp_path / "fuzz.log")).start()
            w.wait_ready()
            cid = faultlib.submit(st, "ff-crashy", "buggy", jobs=1, duration=DURATION_S)
            crashes = S.P + f"campaign:{cid}:crashes"
            faultlib.wait_until(lambda: st.r.scard(crashes) >= 1 and faultlib.fuzzers(cid), 60, "crashes coming in")
            # fill Redis up to a low maxmemory, so it refuses every write
            st.r.config_set("maxmemory-policy", "noeviction")
            st.r.config_set("maxmemory", int(st.r.info("memory")["used_memory"]) + 2_000_000)
            i = 0
            try:
                while True:
                    st.r.set(f"filler:{i}", "x" * 200_000)
                    i += 1
            except redis.exceptions.OutOfMemoryError:
                pass
            # and keep it full (client buffers come and go): the limit just under what is used now
            st.r.config_set("maxmemory", int(st.r.info("memory")["used_memory"]) - 1_000_000)
            # the submitter: one line, exit 2
            p = subprocess.run([sys.executable, "-m", "fuzzfarm.cli", "submit", "ff-crashy", "-d", "2"],
                               env={**os.environ, "PYTHONPATH": env["PYTHONPATH"], "FUZZFARM_REDIS_URL": srv.url},
                               capture_output=True, text=True, timeout=60)
            assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
            assert p.stderr.strip().splitlines() == [p.stderr.strip()] and "Redis is out of memory" in p.stderr, p.stderr
            kept = faultlib.wait_until(lambda: sorted(os.listdir(spool_dir)) if spool_dir.is_dir()
                                       and os.listdir(spool_dir) else None, 20, "crashes kept on the worker's disk")
            in_redis_before = st.r.smembers(crashes)
            st.r.delete(*[f"filler:{j}" for j in range(i)])  # memory freed
            st.r.config_set("maxmemory", 0)
            print(f"oom: {len(kept)} crash(es) kept locally while Redis was full")
            faultlib.wait_until(lambda: not os.listdir(spool_dir), 30, "the kept crashes to go into Redis")
            faultlib.wait_until(lambda: st.job(cid, 0).get("state") in S.JOB_FINAL, 90, "the job to finish")
            assert st.job(cid, 0)["state"] == S.JOB_DONE, st.job(cid, 0)
            shas = {name.removesuffix(".json").split("-", 1)[1] for name in kept}
            assert shas <= st.r.smembers(crashes), (shas, st.r.smembers(crashes))
            assert not shas & in_redis_before  # they really were written only after memory was freed
            assert "now reported" in w.log_text()
    finally:
        if w is not None:
            faultlib.hard_stop(w)
        srv.stop()


def test_each_farm_has_its_own_spool_directory(monkeypatch):
    """Two farms served from one machine never share kept crashes: a flush would report one
    farm's crash into the other's Redis (fuzzfarm/farm/spool.py)."""
    from fuzzfarm.farm import spool

    monkeypatch.delenv("FUZZFARM_SPOOL_DIR", raising=False)
    dirs = []
    for url in ("redis://:pw1@127.0.0.1:6379/0", "redis://:pw2@127.0.0.1:6380/0", "redis://:pw3@127.0.0.1:6379/0"):
        monkeypatch.setenv("FUZZFARM_REDIS_URL", url)
        spool._farm_id.cache_clear()
        dirs.append(spool.directory())
    assert dirs[0] != dirs[1] and dirs[0] == dirs[2]  # by host, port and db; never by password
    assert not any("pw" in d for d in dirs)
    spool._farm_id.cache_clear()
