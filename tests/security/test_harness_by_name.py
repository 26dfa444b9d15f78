"""Workers run only the harnesses installed with them, by registered name. A job or a crash
report naming a file path, a module path, an unregistered importable module or a registered
harness's module instead of its name is refused with "unknown harness" (listing the installed
ones); the named code never runs (it would create a marker file); the workers keep going."""

from __future__ import annotations

import os

import pytest

import faultlib
from fuzzfarm.farm import store as S
from fuzzfarm.farm import tasks

EVIL_FILE = os.path.join(faultlib.SITE, "faultharnesses", "evil_unregistered.py")
MARKER = f"/tmp/fuzzfarm-evil-harness-ran-{os.getuid()}"
NAMES = [EVIL_FILE, "faultharnesses.evil_unregistered", "faultharnesses/evil_unregistered.py",
         "harnesses.checker_race", "faultharnesses.evil_unregistered:TestOneInput", "../evil_unregistered",
         "checker; touch /tmp/x"]


@pytest.fixture(autouse=True)
def _no_marker():
    if os.path.exists(MARKER):
        os.unlink(MARKER)
    yield
    assert not os.path.exists(MARKER), "the unregistered harness ran"


def test_jobs_naming_code_instead_of_a_harness_are_refused(secure_farm, sst):
    cids = {name: faultlib.submit(sst, name, harness_hash_="0" * 64) for name in NAMES}
    faultlib.wait_until(lambda: all(faultlib.job_states(sst, c) == [S.JOB_FAILED] for c in cids.values()), 60,
                        "every such job to be refused")
    for name, cid in cids.items():
        (err,) = sst.campaign_summary(cid)["errors"]
        assert err.startswith(f"unknown harness {name!r}") and "installed harnesses:" in err, err
        assert sst.campaign_summary(cid)["execs"] == 0


def test_crash_reports_naming_code_are_refused(secure_farm, sst):
    cid = sst.create_campaign({"harness": "ff-crashy", "variant": "buggy", "strategy": "bytes", "jobs": 0,
                               "duration_s": 1.0, "harness_hash": "0" * 64, "version": "0"})
    for name in NAMES:
        sha, _ = sst.report_crash(cid, 0, name, "buggy", b"C")
        tasks.enqueue_intake(cid, name, "buggy", sha)
    faultlib.wait_until(lambda: sst.r.scard(S.P + f"campaign:{cid}:intaken") == 1 and faultlib.drained(sst), 60,
                        "the crash reports to be handled")
    for name in NAMES:
        crash = sst.crash(name, "buggy", S.sha256(b"C"))
        assert crash["status"] == "intake failed" and "unknown harness" in crash["error"], crash
    assert sst.bucket_ids() == [] or all(sst.bucket(b)["harness"] not in NAMES for b in sst.bucket_ids())
    assert all(w.alive() for w in secure_farm.workers)
