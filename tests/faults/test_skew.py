"""Version skew never fails a job while a matching worker exists (``fuzzfarm/farm/skew.py``).

Box ``stale`` has its own copy of the test harnesses with one changed line in ``ff-crashy`` (so
another source hash); box ``match`` has the submitter's. Beside a matching worker every job of the
campaign completes (the stale box hands its slices back). With only the stale box, ``fuzzfarm
submit --wait`` (the real CLI, with the submitter's harness copy) ends non-zero with the one-line
reason naming both hashes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

import faultlib
from fuzzfarm.farm import store as S
from fuzzfarm.farm.embedded import Worker

JOBS = 4


def _stale_env(tmp_path, env: dict) -> dict:
    """``env`` for a worker that sees an older copy of ff-crashy: the fault site copied with one
    line added to the harness (one changed line is another source hash) put first on its path."""
    stale_site = tmp_path / "stale-site"
    shutil.copytree(faultlib.SITE, stale_site)
    with open(stale_site / "faultharnesses" / "crashy.py", "a") as f:
        f.write("\n# an older copy of this harness: one changed line is another source hash\n")
    return {**env, "PYTHONPATH": os.pathsep.join([str(stale_site), *env["PYTHONPATH"].split(os.pathsep)[1:]])}


def test_a_skewed_worker_hands_jobs_back_and_only_skew_fails_with_one_line(fault_farm, tmp_path):
    url = fault_farm.url.rsplit("/", 1)[0] + "/4"  # a database of its own: these are its only workers
    env = faultlib.worker_env(FUZZFARM_SKEW_HANDBACKS="3", FUZZFARM_SKEW_BACKOFF_S="0.3")
    stale_env = _stale_env(tmp_path, env)
    workers = []
    with faultlib.publishing_to(url) as st:
        st.r.flushdb()
        try:
            stale = Worker(url, ["fuzz"], env=stale_env, logfile=str(tmp_path / "stale.log"), name="stale").start()
            match = Worker(url, ["fuzz"], env=env, logfile=str(tmp_path / "match.log"), name="match").start()
            workers += [stale, match]
            stale.wait_ready()
            match.wait_ready()
            cid = faultlib.submit(st, "ff-crashy", "buggy", jobs=JOBS, duration=2.0)
            faultlib.wait_until(lambda: faultlib.campaign_final(st, cid), 120, "the campaign to finish")
            s = st.campaign_summary(cid)
            assert s["status"] == "done" and s["jobs_done"] == JOBS and not s["errors"], s
            assert "handing the slice back" in stale.log_text()  # it did take some, and gave them back
            assert all(j["worker"].startswith("match@") for j in st.jobs(cid))
            handbacks = sum(int(j.get("skew_handbacks", 0) or 0) for j in st.jobs(cid))
            print(f"skew beside a match: {JOBS}/{JOBS} jobs done, {handbacks} hand-backs by the stale box")

            faultlib.hard_stop(match)  # only the stale box is left
            env_cli = {**os.environ, "PYTHONPATH": env["PYTHONPATH"], "FUZZFARM_REDIS_URL": url}
            p = subprocess.run([sys.executable, "-m", "fuzzfarm.cli", "submit", "ff-crashy", "-j", "2", "-d", "2",
                                "--wait", "--timeout", "120"], env=env_cli, capture_output=True, text=True,
                               timeout=180)
            assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
            wanted = faultlib.harness_hash("ff-crashy")
            lines = [ln for ln in p.stderr.splitlines() if "no worker has hash" in ln]
            assert len(lines) == 1, p.stderr
            assert f"harness ff-crashy: no worker has hash {wanted[:12]}…; workers have " in lines[0], lines
            assert "(1 of them)" in lines[0], lines
            print(f"only skew: submit --wait exit {p.returncode}: {lines[0]}")
            cid2 = p.stdout.split()[0]
            assert st.campaign_summary(cid2)["status"] == "failed"
            assert all(j["state"] == S.JOB_FAILED for j in st.jobs(cid2))
            p = subprocess.run([sys.executable, "-m", "fuzzfarm.cli", "status", cid2], env=env_cli,
                               capture_output=True, text=True, timeout=60)
            assert p.returncode == 2 and p.stderr.count("no worker has hash") == 1, (p.returncode, p.stderr)
            assert "lost → requeued" not in p.stdout
        finally:
            for w in workers:
                faultlib.hard_stop(w)


@pytest.mark.slow  # ~60 s: a fuzz job, the refusals, then a second collector's whole triage
def test_a_collector_with_another_harness_copy_leaves_the_crash_for_a_matching_one(fault_farm, tmp_path):
    url = fault_farm.url.rsplit("/", 1)[0] + "/6"
    env = faultlib.worker_env(FUZZFARM_SKEW_BACKOFF_S="0.3")
    stale_env = _stale_env(tmp_path, env)
    workers = []
    with faultlib.publishing_to(url) as st:
        st.r.flushdb()
        try:
            fuzz = Worker(url, ["fuzz"], env=env, logfile=str(tmp_path / "fuzz.log"), name="fuzz").start()
            stale = Worker(url, ["collect"], env=stale_env, logfile=str(tmp_path / "stale.log"), name="stale-col").start()
            workers += [fuzz, stale]
            fuzz.wait_ready()
            stale.wait_ready()
            wanted = faultlib.harness_hash("ff-crashy")
            cid = faultlib.submit(st, "ff-crashy", "buggy", jobs=1, duration=6.0)

            def waiting():
                for sha in st.r.smembers(S.P + f"campaign:{cid}:crashes"):
                    c = st.crash("ff-crashy", "buggy", sha) or {}
                    if c.get("waiting"):
                        return c["waiting"]
                return None
            msg = faultlib.wait_until(waiting, 60, "the stale collector to refuse a crash")
            assert msg.startswith(f"waiting for a collector with harness ff-crashy hash {wanted[:12]}…: collector "), msg
            faultlib.wait_until(lambda: faultlib.campaign_final(st, cid), 60, "the fuzzing to end")
            assert st.campaign_summary(cid)["buckets"] == 0  # nothing triaged by the stale copy
            match = Worker(url, ["collect"], env=env, logfile=str(tmp_path / "match.log"), name="match-col").start()
            workers.append(match)
            faultlib.wait_until(lambda: faultlib.campaign_settled(st, cid), 120, "a matching collector to triage")
            s = st.campaign_summary(cid)
            assert s["buckets"] >= 1, s
            for bid in st.campaign_bucket_ids(cid):
                assert st.bucket(bid)["harness_hash"] == wanted
        finally:
            for w in workers:
                faultlib.hard_stop(w)
