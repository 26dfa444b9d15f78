"""One of two fuzz workers with a full disk (its TMPDIR on a full 1 MiB tmpfs): every job of the
campaign completes on the other, and the full one says ``no space left on device`` with the path
(farm/diskcheck.py). Needs to mount a tmpfs (root); skips with one line where it cannot."""

from __future__ import annotations

import subprocess

import pytest

import faultlib
from fuzzfarm.farm import store as S
from fuzzfarm.farm.embedded import Worker

JOBS = 4


@pytest.fixture
def full_dir(tmp_path):
    d = tmp_path / "full"
    d.mkdir()
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(d)], capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({p.stderr.strip() or p.returncode}): no full disk to test")
    try:
        try:  # fill it...
            with open(d / "filler", "wb") as f:
                while True:
                    f.write(b"\0" * 65536)
                    f.flush()
        except OSError:
            pass
        # ...but for 8 KiB: small writes still succeed (Python's gettempdir() probes TMPDIR with a
        # few bytes and silently falls back to /tmp when that fails), a fuzz slice's do not
        size = (d / "filler").stat().st_size
        with open(d / "filler", "r+b") as f:
            f.truncate(max(0, size - 8192))
        yield d
    finally:
        subprocess.run(["umount", "-l", str(d)], capture_output=True)


def test_a_worker_with_a_full_disk_hands_its_slices_to_the_other(fault_farm, tmp_path, full_dir):
    url = fault_farm.url.rsplit("/", 1)[0] + "/6"  # a database of its own: these are its only workers
    env = faultlib.worker_env(FUZZFARM_DISK_HANDBACKS="1000")
    workers = []
    with faultlib.publishing_to(url) as st:
        st.r.flushdb()
        try:
            full = Worker(url, ["fuzz"], env={**env, "TMPDIR": str(full_dir)}, logfile=str(tmp_path / "full.log"),
                          name="full").start()
            ok = Worker(url, ["fuzz"], env=env, logfile=str(tmp_path / "ok.log"), name="ok").start()
            workers += [full, ok]
            full.wait_ready()
            ok.wait_ready()
            cid = faultlib.submit(st, "ff-crashy", "fixed", jobs=JOBS, duration=2)
            faultlib.wait_until(lambda: faultlib.campaign_final(st, cid), 180, "the campaign's jobs to end")
            jobs = st.jobs(cid)
            text = full.log_text()
            print(f"full disk on 1 of 2 workers: jobs {[j.get('state') for j in jobs]}; hand-backs by the full one: "
                  f"{text.count('handing the slice back')}")
            assert [j.get("state") for j in jobs] == [S.JOB_DONE] * JOBS, [j.get("error") for j in jobs]
            assert all(j.get("worker", "").startswith("ok@") or not j.get("worker") for j in jobs)
            assert "handing the slice back" in text  # it took some (the test's point) and gave them back
            assert f"cannot write its work directory {full_dir}: no space left on device (ENOSPC)" in text, text[-3000:]
        finally:
            for w in workers:
                faultlib.hard_stop(w)


@pytest.mark.slow  # ~20 s of hand-back waits
def test_with_no_worker_able_to_write_the_job_fails_with_the_one_line(fault_farm, tmp_path, full_dir):
    url = fault_farm.url.rsplit("/", 1)[0] + "/6"
    env = faultlib.worker_env(FUZZFARM_DISK_HANDBACKS="2")
    with faultlib.publishing_to(url) as st:
        st.r.flushdb()
        full = Worker(url, ["fuzz"], env={**env, "TMPDIR": str(full_dir)}, logfile=str(tmp_path / "full.log"),
                      name="full").start()
        try:
            full.wait_ready()
            cid = faultlib.submit(st, "ff-crashy", "fixed", jobs=1, duration=2)
            faultlib.wait_until(lambda: faultlib.campaign_final(st, cid), 180, "the job to end")
            job = st.job(cid, 0)
            print(f"full disk, no other worker: {job.get('state')}: {job.get('error')}")
            assert job["state"] == S.JOB_FAILED
            assert job["error"].startswith("no worker could run it: worker full@") and \
                f"cannot write its work directory {full_dir}: no space left on device (ENOSPC)" in job["error"]
        finally:
            faultlib.hard_stop(full)
