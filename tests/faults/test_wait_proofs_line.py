"""``fuzzfarm submit --wait`` returns once every bucket is verified and fix-checked, and when proofs
are still outstanding says so on its last line: how many buckets have no proof yet, and which.
Buckets, not searches: buckets of one proof key share one search (farm/triage.py), so the line
counts what it names.

A real farm (redis-server, a fuzz worker, a collect worker of 2 processes) and the real command.
``ff-slowproof``'s fixed variant takes its whole proof budget (60 CPU s here, no early give-up),
so every bucket is still ``proving`` when the command returns; the test reads the buckets the
line names right after, from Redis."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import faultlib

from farm_fixtures import _need_redis
from fuzzfarm.farm import store as S
from fuzzfarm.farm.embedded import Farm

LINE = re.compile(r"^(\d+) bucket\(s\) without their proof yet \(([\w, ]+)\): each one's fix verdict is stored, "
                  r"its bounded proof runs or waits for a slot; `fuzzfarm status (c\w+)` shows the campaign settled "
                  r"once every proof is stored$", re.M)


def test_submit_wait_names_the_buckets_whose_proof_is_not_stored(site, tmp_path):
    _need_redis()
    env = faultlib.worker_env(FUZZFARM_PROVE_BUDGET_S="60", FUZZFARM_PROVE_GIVE_UP_EARLY="0",
                              FUZZFARM_FIX_RANDOM_RUNS="5", FUZZFARM_FIX_PCT_RUNS="5",
                              FUZZFARM_COLLECT_TIME_LIMIT_S="200", FUZZFARM_VISIBILITY_TIMEOUT="240")
    farm = Farm(workdir=str(tmp_path / "farm"), fuzz_concurrency=1, collect_concurrency=2, worker_env=env)
    farm.start()
    try:
        e = {**os.environ, "FUZZFARM_REDIS_URL": farm.url, "PYTHONPATH": faultlib.SITE, "COLUMNS": "400"}
        p = subprocess.run([sys.executable, "-m", "fuzzfarm.cli", "submit", "ff-slowproof", "--jobs", "1",
                            "--duration", "3", "--wait", "--timeout", "240"], capture_output=True, text=True,
                           timeout=300, cwd=str(tmp_path), env=e)
        assert p.returncode == 1, (p.stdout, p.stderr)  # found a bucket
        assert "waiting until every bucket is verified and fix-checked (proofs may still run" in p.stderr, p.stderr
        m = LINE.search(p.stderr)
        assert m, p.stderr
        n, named, cid = int(m.group(1)), m.group(2).split(", "), m.group(3)
        st = S.Store(farm.url)
        buckets = [st.bucket(b) for b in st.campaign_bucket_ids(cid)]
        assert buckets and all(b["fix_verdict"] for b in buckets), buckets  # every verdict stored
        unproven = sorted(b["id"] for b in buckets if b["state"] == S.B_PROVING and not b.get("fix_proof"))
        assert n == len(named) and sorted(named) == unproven, (m.group(0), unproven)
        assert not st.campaign_summary(cid)["settled"]
        st.close()
    finally:
        for w in farm.workers:
            faultlib.hard_stop(w)
        farm.stop()
