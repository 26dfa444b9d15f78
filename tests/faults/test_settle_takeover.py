"""A box frozen (SIGSTOP) past its slice's hard time limit, then thawed: its worker's main process
sees the hard limit fire (or an operator's revoke) for a slice whose lease a janitor had already
taken over, requeued and handed to another worker. ``settle.py`` must leave that job alone: it
runs elsewhere. Real Redis (the fault farm's), the product's own settle and takeover code."""

from __future__ import annotations

import time

from fuzzfarm.farm import store as S
from fuzzfarm.farm import config, jobs, lease, settle

WHY = "killed at its hard time limit (TimeLimitExceeded(24.0))"


def _running_job(st) -> tuple[str, dict]:
    cid = st.create_campaign({"harness": "ff-crashy", "variant": "buggy", "strategy": "bytes", "jobs": 1,
                              "duration_s": 8.0, "harness_hash": "h" * 64, "version": "0"})
    st.update_job(cid, 0, state=S.JOB_RUNNING, worker="box-a@x")
    return cid, jobs.job_spec(cid, 0, st.campaign(cid))


def test_the_old_task_of_a_taken_over_slice_does_not_fail_the_job(fst):
    cid, spec = _running_job(fst)
    claim = lease.claim_name(cid, 0, 0)
    assert fst.acquire_lease(claim, "task-a", 60)
    lease.hold(fst, cid, 0, 0, "task-a", {"execs": 5}, ttl_s=1, now=time.time() - 10)  # its lease ended
    assert lease.take_over(fst, lease.member(cid, 0, 0)) == 1  # the janitor's part
    assert fst.job(cid, 0)["lost_owner"] == "task-a"
    # requeued, not yet started elsewhere: the thawed box's hard limit fires
    settle.settle(config.TASK_FUZZ, [spec], WHY, job_state=S.JOB_FAILED, task_id="task-a")
    assert fst.job(cid, 0)["state"] == S.JOB_QUEUED
    # the new message took the slice on box b: the old one's revoke or limit is still not the job's
    assert fst.acquire_lease(claim, "task-b", 60)
    fst.update_job(cid, 0, state=S.JOB_RUNNING, worker="box-b@x")
    settle.settle(config.TASK_FUZZ, [spec], WHY, job_state=S.JOB_FAILED, task_id="task-a")
    settle.settle(config.TASK_FUZZ, [spec], "revoked", job_state=S.JOB_CANCELLED, task_id="task-a")
    assert fst.job(cid, 0)["state"] == S.JOB_RUNNING
    # the task that holds the slice is settled as before
    settle.settle(config.TASK_FUZZ, [spec], WHY, job_state=S.JOB_FAILED, task_id="task-b")
    job = fst.job(cid, 0)
    assert job["state"] == S.JOB_FAILED and "hard time limit" in job["error"], job


def test_a_slice_killed_at_its_hard_limit_without_a_takeover_still_fails_its_job(fst):
    cid, spec = _running_job(fst)
    assert fst.acquire_lease(lease.claim_name(cid, 0, 0), "task-a", 60)
    settle.settle(config.TASK_FUZZ, [spec], WHY, job_state=S.JOB_FAILED, task_id="task-a")
    assert fst.job(cid, 0)["state"] == S.JOB_FAILED
    # revoked before it ran (no claim, no takeover): cancelled
    cid, spec = _running_job(fst)
    settle.settle(config.TASK_FUZZ, [spec], "revoked before it ran", job_state=S.JOB_CANCELLED, task_id="task-z")
    assert fst.job(cid, 0)["state"] == S.JOB_CANCELLED
