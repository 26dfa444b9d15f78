"""A 30%-flaky bug with a no-op fix (``ff-flaky``) through the real farm: real redis-server, real
Celery workers, real atheris. Its inputs must be kept, its bucket must say ``flaky`` and
``reproducible: false`` with fewer than 10 of 10 verification replays failing, and its fix
verdict must never be ``fixed``."""

from __future__ import annotations

import pytest

import faultlib
from farm_fixtures import _need_redis
from fuzzfarm.farm import store as S
from fuzzfarm.farm.embedded import Farm

# Verification with 10 replays (P(10/10) at 30% is 6e-6); intake retries a passing replay 15
# times (a flaky input is lost with p = 0.7^16 = 0.3% per input); a small fix-check budget.
FLAKY_ENV = faultlib.worker_env(FUZZFARM_VERIFY_RUNS="10", FUZZFARM_INTAKE_REPLAYS="15",
                                FUZZFARM_FIX_FLAKY_REPLAYS="10", FUZZFARM_FIX_RANDOM_RUNS="10",
                                FUZZFARM_FIX_PCT_RUNS="10", FUZZFARM_MINIMIZE_BUDGET_S="5")


@pytest.fixture(scope="module")
def flaky_farm(tmp_path_factory):
    _need_redis()
    f = Farm(workdir=str(tmp_path_factory.mktemp("flakyfarm")), fuzz_concurrency=2, collect_concurrency=1,
             worker_env=FLAKY_ENV)
    f.start()
    yield f
    f.stop()
    for w in f.workers:
        assert not w.alive(), f"worker {w.name} outlived the farm"


def test_a_flaky_bug_is_kept_labelled_flaky_and_never_called_fixed(flaky_farm):
    from fuzzfarm.cli.bugs import print_buckets
    from rich.console import Console

    with faultlib.publishing_to(flaky_farm.url) as st:
        st.r.flushdb()
        # a corpus of inputs that start with F: every job reaches the bug at once (30% per run);
        # what is tested is the collector, not how fast libFuzzer finds a prefix on a busy machine
        st.add_corpus("ff-flaky", [b"F", b"F\x00", b"F\x01\x02", b"FF", b"F" * 8])
        cid = faultlib.submit(st, "ff-flaky", jobs=2, duration=4)
        faultlib.wait_until(lambda: faultlib.campaign_settled(st, cid), 180, "the ff-flaky campaign to settle")
        s = st.campaign_summary(cid)
        assert s["crashes"] >= 1 and s["buckets"] >= 1, s  # found, and kept although replays pass
        for bid in st.campaign_bucket_ids(cid):
            b = st.bucket(bid)
            assert b["state"] == S.B_DONE, b
            assert b["reproducible"] is False and b["verify_n"] == 10 and b["verify_ok"] < 10, b
            assert b["flaky"] is True, b
            assert b["fix_verdict"] in ("NO", "unknown (flaky)") and b["fixed"] is not True, b
            flaky = next(c for c in b["fix_evidence"]["checks"] if c["name"] == "flaky replays")
            assert flaky["runs"] == 10, flaky
        console = Console(record=True, width=200)
        print_buckets(st, cid, console=console)
        table = console.export_text()
        assert f"flaky ({b['verify_ok']}/10)" in table and "fixed (" not in table, table
