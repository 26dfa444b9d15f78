"""A Redis user without the rights the farm needs (a hardened Redis: ``resetchannels``, no pub/sub
channels): ``fuzzfarm worker`` and a plain ``celery … worker`` stop at start-up with one line naming
what is missing, exit 2 (farm/aclcheck.py); a user given the ACL line of docs/OPERATIONS.md
(``aclcheck.ACL_RULES``) runs a whole campaign, triage included, with no NOPERM anywhere."""

from __future__ import annotations

import os
import subprocess
import sys

import redis

import faultlib
from farm_fixtures import _need_redis
from fuzzfarm.farm import store as S
from fuzzfarm.farm import aclcheck
from fuzzfarm.farm.embedded import Farm, RedisServer, Worker

NARROW = [r for r in aclcheck.ACL_RULES.split() if r != "allchannels"]  # channels: none (resetchannels)


def test_restricted_user_one_line_exit_2_and_the_documented_acl_suffices(tmp_path):
    _need_redis()
    (tmp_path / "redis").mkdir()
    srv = RedisServer(str(tmp_path / "redis")).start()
    farm = None
    try:
        adm = redis.Redis.from_url(srv.url)
        adm.execute_command("ACL", "SETUSER", "narrow", "on", ">pw", "resetchannels", *NARROW)
        adm.execute_command("ACL", "SETUSER", "farm", "on", ">pw", *aclcheck.ACL_RULES.split())
        hostport = srv.url.rsplit("@", 1)[-1].split("//")[-1]
        narrow, full = f"redis://narrow:pw@{hostport}", f"redis://farm:pw@{hostport}"
        env = {**os.environ, **faultlib.worker_env(), "FUZZFARM_REDIS_URL": narrow}

        p = subprocess.run([sys.executable, "-m", "fuzzfarm.cli", "worker", "-c", "1"], env=env, capture_output=True,
                           text=True, timeout=120)
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        print(f"fuzzfarm worker, restricted user: exit {p.returncode}: {lines}")
        assert p.returncode == 2 and len(lines) == 1, (p.returncode, p.stderr[-2000:])
        assert "the Redis user narrow lacks rights the farm needs: pub/sub channels" in lines[0]
        assert "ACL SETUSER narrow ~fuzzfarm:*" in lines[0] and ":pw@" not in lines[0]

        w = Worker(narrow, ["fuzz"], env=faultlib.worker_env(), logfile=str(tmp_path / "celery.log")).start()
        w.proc.wait(120)
        text = w.log_text()
        print(f"celery worker, restricted user: exit {w.proc.returncode}")
        assert w.proc.returncode == 2, text[-2000:]
        assert "fuzzfarm worker: the Redis user narrow lacks rights the farm needs: pub/sub channels" in text
        assert "Traceback" not in text, text[-2000:]
        w.stop()

        assert aclcheck.missing(S.connect(full)) == []
        (tmp_path / "farm").mkdir()
        farm = Farm(url=full, fuzz_concurrency=1, collect_concurrency=1, worker_env=faultlib.worker_env(),
                    workdir=str(tmp_path / "farm")).start()
        with faultlib.publishing_to(full) as st:
            cid = faultlib.submit(st, "ff-crashy", "buggy", jobs=1, duration=3)
            faultlib.wait_until(lambda: faultlib.campaign_settled(st, cid), 120, "the campaign to settle")
            s = st.campaign_summary(cid)
            assert s["status"] == "done" and s["buckets"] == 1 and s["intaken"] == s["crashes"], s
        logs = "\n".join(w.log_text() for w in farm.workers)
        assert "NOPERM" not in logs and "can't run this command" not in logs
    finally:
        if farm is not None:
            farm.stop()
        srv.stop()
