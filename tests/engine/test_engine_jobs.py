"""Real fuzz jobs (atheris subprocesses, walk subprocesses) on the toy harness."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from fuzzfarm.collector import replay
from fuzzfarm.engine import merge_corpus, run_fuzz_job

HERE = os.path.dirname(os.path.abspath(__file__))
TOY_SIGNATURE_KINDS = {"concurrent map writes", "goroutine panic (TypeError)", "goroutine panic (ValueError)"}


def _job(toy, tmp_path, **kw):
    crashes, stats, when = [], [], []
    args = dict(harness=toy, variant="buggy", seed=1, duration_s=10, corpus=[], workdir=str(tmp_path / "job"),
                on_crash=lambda c: (crashes.append(c), when.append(time.monotonic())),
                on_stats=stats.append, timeout_s=5)
    args.update(kw)
    start = time.monotonic()
    res = run_fuzz_job(**args)
    return res, crashes, stats, when, start, time.monotonic()


def test_bytes_job_finds_reports_restarts_and_grows_corpus(toy, tmp_path):
    res, crashes, stats, when, start, end = _job(toy, tmp_path, duration_s=12)
    assert res.error is None
    assert res.crashes == len(crashes) >= 1
    # reported as found, not at the end
    assert when[0] < end - 1.0
    # keeps fuzzing after a crash: the fuzzer was restarted
    assert res.restarts >= 1
    for c in crashes[:3]:
        assert c.artifact == "crash"
        assert "Uncaught Python exception" in c.log_tail
        out = replay(toy, "buggy", c.data)
        assert out["failed"], c.data
        assert out["crash_type"] in TOY_SIGNATURE_KINDS
        # the toy raises report.raise_failure() itself, not harness.raise_unless_tolerated: it
        # says no bucket signature, so intake replays its crashes (checker's: the test below)
        assert c.signature == ""
    # stats streamed about every second, execs growing, exec/s from execs / elapsed
    assert len(stats) >= 5
    assert stats[-1].execs >= stats[0].execs and stats[-1].execs > 0
    assert stats[-1] == res.stats
    assert res.stats.exec_per_s == pytest.approx(res.stats.execs / res.stats.elapsed_s, rel=0.01)
    assert res.stats.cov > 0 and res.stats.crashes == res.crashes
    assert res.new_corpus and all(isinstance(d, bytes) for d in res.new_corpus)
    assert 9 <= res.stats.elapsed_s <= 12 + 2 * 5 + 5


def test_hang_gives_a_timeout_artifact(toy, tmp_path):
    res, crashes, *_ = _job(toy, tmp_path, variant="hang", corpus=[b"Hx"], duration_s=6, timeout_s=1)
    assert res.error is None
    timeouts = [c for c in crashes if c.artifact == "timeout"]
    assert timeouts and timeouts[0].data.startswith(b"H")
    assert all(c.signature == "" for c in timeouts)  # a hang is replayed at intake, never joined by a word
    assert "timeout" in timeouts[0].log_tail.lower()


def test_memory_hog_gives_an_oom_artifact(toy, tmp_path):
    res, crashes, *_ = _job(toy, tmp_path, variant="oom", corpus=[b"Mx"], duration_s=5, rss_limit_mb=300)
    assert res.error is None
    ooms = [c for c in crashes if c.artifact == "oom"]
    assert ooms and ooms[0].data.startswith(b"M")
    assert "out-of-memory" in ooms[0].log_tail


def test_import_failure_is_one_clear_error(broken, tmp_path):
    res, crashes, *_ = _job(broken, tmp_path, duration_s=5)
    assert crashes == [] and res.crashes == 0
    assert res.error.startswith("harness 'broken' failed to start (exit code 1)")
    assert "No module named 'fuzzfarm_no_such_dependency'" in res.error
    assert "\n" not in res.error


@pytest.mark.parametrize("kw, needle", [
    (dict(harness="no-such-harness"), "unknown harness 'no-such-harness'"),
    (dict(variant="nope"), "has no variant 'nope'"),
    (dict(strategy="dfs"), "unknown strategy 'dfs'"),
    (dict(duration_s=0), "must be positive"),
])
def test_bad_arguments_are_errors_not_exceptions(toy, tmp_path, kw, needle):
    res, *_ = _job(toy, tmp_path, **kw)
    assert needle in res.error and res.crashes == 0


def _fuzzers_of(marker: str) -> list[int]:
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmd and b"toy_harness.py" in cmd and state != "Z":  # zombies are dead (docs/TRAPS.md#g22)
            pids.append(int(pid))
    return pids


def test_fuzzer_does_not_outlive_a_killed_parent(tmp_path):
    workdir = str(tmp_path / "orphan-check")
    parent = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {HERE!r})
        from fuzzfarm.harness import Target
        from fuzzfarm.engine import run_fuzz_job
        run_fuzz_job(harness=Target("toy", "toy_harness"), variant="fixed", seed=1, duration_s=60,
                     corpus=[], workdir={workdir!r}, on_crash=lambda c: None)
    """)])
    try:
        deadline = time.monotonic() + 20
        while not _fuzzers_of(workdir) and time.monotonic() < deadline:
            time.sleep(0.1)
        fuzzers = _fuzzers_of(workdir)
        assert fuzzers, "the fuzzer never started"
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 5
        while _fuzzers_of(workdir) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _fuzzers_of(workdir) == []
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        for pid in _fuzzers_of(workdir):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("strategy", ["random", "pct"])
def test_walk_jobs_find_the_bug_and_their_crashes_replay_as_bytes(toy, tmp_path, strategy):
    res, crashes, stats, *_ = _job(toy, tmp_path, strategy=strategy, duration_s=3)
    assert res.error is None and res.crashes == len(crashes) >= 1
    assert res.stats.execs > 100 and stats
    kinds = set()
    for c in crashes[:4]:
        out = replay(toy, "buggy", c.data)  # the default (bytes) strategy, a fresh process
        assert out["failed"], c.data
        # the walk says the signature of the bytes replay it ran; a fresh-process replay agrees
        assert c.signature and c.signature == out["signature"], (c.data, c.signature, out["signature"])
        kinds.add(out["crash_type"])
        assert out["crash_type"] in c.log_tail or out["kind"] in c.log_tail
    assert kinds <= TOY_SIGNATURE_KINDS


def test_walk_is_deterministic_for_a_seed(toy, tmp_path):
    # The walk is time-bounded, so a loaded machine may stop either run earlier: compare the
    # crashes both runs got to, in order (same seed -> same walk -> same inputs).
    first = []
    for i in range(2):
        _, crashes, *_ = _job(toy, tmp_path / str(i), strategy="random", duration_s=3, seed=42)
        first.append([c.data for c in crashes[:2]])
    n = min(len(first[0]), len(first[1]))
    assert n >= 1 and first[0][:n] == first[1][:n]


def test_merge_corpus_keeps_a_smaller_covering_subset(toy, tmp_path):
    inputs = [bytes([0, k, 0]) for k in range(1, 40)] + [bytes([1, 5, 0, 0]), bytes([1, 6, 0, 0]), b"", b"\x00"]
    merged = merge_corpus(toy, "buggy", inputs, str(tmp_path))
    assert merged and len(merged) < len(set(inputs))
    assert set(merged) <= set(inputs)
    assert any(d[:1] == b"\x01" for d in merged)  # the cancel scenario's coverage is kept


def test_a_restarted_fuzzer_tolerates_what_the_job_already_found(tmp_path):
    """checker/buggy crashes within tens of runs: without tolerance the job would restart on S1
    over and over. Every crash it reports must be a failure it had not reported before, and
    the fuzzer restarts carry the known signatures in FUZZFARM_TOLERATE."""
    from fuzzfarm.harness import get

    crashes = []
    res = run_fuzz_job(harness="checker", variant="buggy", seed=1, duration_s=15, corpus=[],
                       workdir=str(tmp_path / "job"), on_crash=crashes.append, timeout_s=10)
    assert res.error is None and crashes
    sigs = [replay(get("checker"), "buggy", c.data)["signature"] for c in crashes]
    assert len(sigs) == len(set(sigs)), sigs  # no failure reported twice
    # each crash carries the bucket signature the fuzz child computed (harness.SIGNATURE_LINE),
    # the one its fresh-process replay gives (intake joins a bucket by it unreplayed: farm/triage.py)
    assert [c.signature for c in crashes] == sigs
    assert res.restarts == len(crashes) or res.restarts == len(crashes) - 1
    logs = sorted((tmp_path / "job" / "logs").glob("fuzz-*.log"), key=lambda p: int(p.stem.split("-")[1]))
    assert "fuzzfarm: failing goroutine panic at ObjectChecker.stop" in logs[0].read_text()
    if len(logs) > 1:  # a later run passed over the first bug instead of stopping at it
        assert "fuzzfarm: tolerated goroutine panic at ObjectChecker.stop" in "".join(p.read_text() for p in logs[1:])
    # most of the budget went to fuzzing, not to restarting on the same bug
    assert res.stats.execs > 50 * max(1, res.restarts), (res.stats, res.restarts)


def test_a_corpus_full_of_known_bugs_does_not_stop_the_job(tmp_path):
    """Inputs that fail with different bugs already in the corpus (a campaign corpus keeps what
    a tolerant fuzzer added): each one crashes a run before fuzzing starts, but each teaches the
    job a new signature to tolerate, so the job fuzzes for its whole budget instead of giving up
    after two crashes before fuzzing."""
    import random

    from fuzzfarm import harness as H
    from fuzzfarm.strategies import PCTStrategy

    mod = H.get("checker").load()
    rng, by_sig = random.Random(5), {}
    for i in range(3000):  # PCT walks: the checker's bugs within a few runs each, deterministic
        events = rng.randbytes(rng.choice((8, 16, 32, 64)))
        with H.schedule_from(PCTStrategy(i)):
            ex = mod.execute(events, "buggy")
        if ex.failure is not None:
            by_sig.setdefault((ex.failure.kind, tuple(ex.failure.crash_state)), ex.as_bytes_input(events))
        if len(by_sig) >= 2:
            break
    assert len(by_sig) >= 2, by_sig
    res = run_fuzz_job(harness="checker", variant="buggy", seed=4, duration_s=10, corpus=list(by_sig.values()),
                       workdir=str(tmp_path / "job"), on_crash=lambda c: None, timeout_s=10)
    assert res.error is None
    # it fuzzed to the end of its budget (giving up takes two short runs) and ran inputs
    assert res.stats.elapsed_s >= 8 and res.stats.execs > 50, res.stats
