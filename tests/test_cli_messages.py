"""CLI messages found confusing by a newcomer run: a malformed $FUZZFARM_REDIS_URL, and a fix
check that cannot hold for a hazard the fixed variant keeps."""

import os
import subprocess
import sys

from fuzzfarm import collector


def cli(*args, env_extra=None, cwd=None):
    env = {**os.environ, **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "fuzzfarm.cli", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120)


def test_a_malformed_redis_url_in_the_environment_is_one_line_and_spares_commands_without_redis():
    bad = {"FUZZFARM_REDIS_URL": "http://user:hunter2@127.0.0.1:6379/0"}
    p = cli("harnesses", env_extra=bad)
    assert p.returncode == 0 and "checker" in p.stdout, p.stderr
    p = cli("status", env_extra=bad)
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert p.returncode == 2 and len(lines) == 1 and "must start with redis:// or rediss://" in lines[0], p.stderr
    assert "hunter2" not in p.stdout + p.stderr
    w = subprocess.run([sys.executable, "-m", "celery", "-A", "fuzzfarm.farm", "worker", "-Q", "fuzz"],
                       capture_output=True, text=True, timeout=120, env={**os.environ, **bad})
    assert w.returncode == 2 and "fuzzfarm worker: Redis URL" in w.stderr and "hunter2" not in w.stderr


def test_replay_on_fixed_warns_when_the_fix_keeps_the_failure_kind(tmp_path):
    """checker's FIXED_MAY_FAIL names P3(b): a P3(b) reproducer that passes on ``fixed`` gets a
    warning that this proves nothing about the fix (and exit 0, it did not fail)."""
    p3b = "WaitGroup reused before previous Wait returned"
    out = collector.replay("checker", "buggy", b"", trace=True)  # any input; only repro.json's kind matters
    files = collector.build_artifact(bucket={"id": "b1", "harness": "checker", "variant": "buggy", "signature": "s"},
                                     original=b"", minimized=b"", outcome={**out, "crash_type": p3b, "crash_state": [
                                         "Group.wait", "WaitForControlledPods.gather", "execute.main"]},
                                     harness_hash="", version="")
    collector.write_artifact(files, tmp_path)
    p = cli("replay", str(tmp_path), "--variant", "fixed", "-q")
    assert p.returncode == 0 and "checker/fixed: not failing" in p.stdout, p.stdout + p.stderr
    assert f"still reaches '{p3b}'" in p.stderr and "does not mean the fix holds" in p.stderr
    # the same kind elsewhere is no declared hazard (FIXED_MAY_FAIL holds signatures): no excuse
    files = collector.build_artifact(bucket={"id": "b3", "harness": "checker", "variant": "buggy", "signature": "s"},
                                     original=b"", minimized=b"", outcome={**out, "crash_type": p3b, "crash_state": [
                                         "Group.add", "ObjectChecker.run", "execute.main"]},
                                     harness_hash="", version="")
    collector.write_artifact(files, tmp_path / "other")
    p = cli("replay", str(tmp_path / "other"), "--variant", "fixed", "-q")
    assert p.returncode == 0 and "does not mean the fix holds" not in p.stderr, p.stderr
    files = collector.build_artifact(bucket={"id": "b2", "harness": "checker", "variant": "buggy", "signature": "s"},
                                     original=b"", minimized=b"", outcome={**out, "crash_type": "goroutine panic (TypeError)"},
                                     harness_hash="", version="")
    collector.write_artifact(files, tmp_path / "seed")
    p = cli("replay", str(tmp_path / "seed"), "--variant", "fixed", "-q")
    assert p.returncode == 0 and "fix holds" not in p.stderr


def test_a_typo_in_submit_is_reported_as_such_even_with_redis_down():
    down = {"FUZZFARM_REDIS_URL": "redis://127.0.0.1:1/0"}
    p = cli("submit", "nosuch", env_extra=down)
    assert p.returncode == 2 and "unknown harness 'nosuch'" in p.stderr and "Redis" not in p.stderr, p.stderr
    p = cli("submit", "checker", "--variant", "fixd", env_extra=down)
    assert p.returncode == 2 and "fixd" in p.stderr and "Redis" not in p.stderr, p.stderr
    p = cli("status", env_extra=down)
    assert p.returncode == 2 and "`fuzzfarm --redis URL ...`" in p.stderr, p.stderr


def test_runone_on_a_missing_file_is_one_line():
    p = subprocess.run([sys.executable, "-m", "fuzzfarm.runone", "checker", "buggy", "/no/such/file"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and p.stderr.strip().count("\n") == 0 and "cannot read the input" in p.stderr
