"""A bad numeric ``FUZZFARM_*`` setting is one line naming it and exit 2, at the start of the
command or worker that reads it (fuzzfarm/settings.py), never a traceback or a job failing later."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

# What a worker imports at its start (Celery loads the task modules before it takes a message).
WORKER_START = [sys.executable, "-c", "import fuzzfarm.farm.tasks, fuzzfarm.farm.explore_tasks, fuzzfarm.farm.store.retention"]
CLI_HELP = [sys.executable, "-m", "fuzzfarm.cli", "status", "--help"]

CASES = [
    ("FUZZFARM_BROKER_SOCKET_TIMEOUT_S", "0", CLI_HELP),
    ("FUZZFARM_BROKER_SOCKET_TIMEOUT_S", "nan", CLI_HELP),
    ("FUZZFARM_BROKER_HEALTH_CHECK_S", "-1", CLI_HELP),
    ("FUZZFARM_BROKER_HEALTH_CHECK_S", "inf", WORKER_START),
    ("FUZZFARM_CAMPAIGN_TTL_S", "abc", WORKER_START),
    ("FUZZFARM_CORPUS_MAX", "abc", WORKER_START),
    ("FUZZFARM_CORPUS_MAX", "0", WORKER_START),
    ("FUZZFARM_COLLECTOR_HANDBACKS", "nan", WORKER_START),
    ("FUZZFARM_ORPHAN_GRACE_S", "-1", WORKER_START),
    ("FUZZFARM_MERGE_DEFER_MAX_S", "abc", WORKER_START),
    ("FUZZFARM_STATS_INTERVAL_S", "inf", WORKER_START),
    ("FUZZFARM_TIMEOUT_S", "2.5", WORKER_START),
    ("FUZZFARM_VERIFY_RUNS", "ten", WORKER_START),
]


@pytest.mark.parametrize("name, value, argv", CASES)
def test_a_bad_setting_is_one_line_and_exit_2(name, value, argv):
    env = {**os.environ, name: value}
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    assert "Traceback" not in p.stderr and len(lines) == 1, p.stderr[-2000:]
    assert lines[0].startswith(f"fuzzfarm: {name}={value!r} is not ") and "unset it for the default" in lines[0]


def test_good_settings_are_read():
    env = {**os.environ, "FUZZFARM_CORPUS_MAX": "17", "FUZZFARM_BROKER_HEALTH_CHECK_S": "0.5"}
    code = ("from fuzzfarm.farm import config, corpus_bound; "
            "print(corpus_bound.CORPUS_MAX, config.BROKER_HEALTH_CHECK_S)")
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["17", "1"]  # 0.5 s rounds up to a whole second, never to 0 (checks off)
