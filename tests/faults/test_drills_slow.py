"""The long drills as tests, behind ``-m slow`` (the default run excludes them): ``scripts/test -m slow
tests/faults/test_drills_slow.py``. They run the
same code as ``scripts/drill_kill_worker`` and ``scripts/drill_redis_restart``, each on a private
farm, and fail on any broken promise."""

from __future__ import annotations

import subprocess
import sys

import pytest

import faultlib

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]


def _drill(*args: str) -> str:
    p = subprocess.run([sys.executable, f"{faultlib.HERE}/drill.py", *args], capture_output=True, text=True,
                       timeout=3500)
    print(p.stdout[-3000:])
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    return p.stdout


def test_kill_drill_20_pool_process_kills():
    assert "kills survived / tried: 20 / 20; crashes lost: 0" in _drill("kill", "--kills", "20")


def test_kill_drill_mixed_whole_worker_and_pool_kills():
    assert "crashes lost: 0" in _drill("kill", "--mode", "mixed", "--kills", "8", "--seed", "3")


def test_redis_restart_drill_5_restarts():
    assert "restarts survived / tried: 5 / 5" in _drill("redis", "--restarts", "5")
