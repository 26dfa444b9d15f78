"""Parsing libFuzzer output, redaction, the child environment, seeds: no processes."""

from fuzzfarm.engine import libfuzzer_output as L
from fuzzfarm.engine.atheris_job import run_seed
from fuzzfarm.harness.child import child_env
from fuzzfarm.engine.redact import redact

# Real lines from an atheris 3.0.0 run of the toy harness.
LOG = """INFO: Seed: 1
#2\tINITED cov: 101 ft: 101 corp: 1/1b exec/s: 0 rss: 49Mb
#58\tNEW    cov: 142 ft: 240 corp: 7/20b lim: 4 exec/s: 0 rss: 49Mb L: 3/4 MS: 1 CrossOver-
#4096\tpulse  cov: 144 ft: 250 corp: 10/41b lim: 43 exec/s: 2048 rss: 51Mb

 === Uncaught Python exception: ===
GoroutinePanic: goroutine panic: ValueError: writer got key 0 in goroutine 2 [_writers.main.writer]
Traceback (most recent call last):
  File "/x/toy_harness.py", line 128, in TestOneInput
GoroutinePanic: goroutine panic: ValueError: writer got key 0

==9168== ERROR: libFuzzer: fuzz target exited
SUMMARY: libFuzzer: fuzz target exited
MS: 2 ChangeBit-ChangeBinInt-; base unit: 43d4beab86195512d0e24a2f23e5457e510a3649
artifact_prefix='art/'; Test unit written to art/crash-4649776f2fd98acd11fca164a3f876f6bc568240
Base64: BAAIKw==
stat::number_of_executed_units: 85
stat::average_exec_per_sec:     0""".splitlines()


def test_status_lines():
    st = L.parse_status(LOG[1])
    assert (st.execs, st.event, st.cov, st.ft, st.corp, st.rss_mb) == (2, "INITED", 101, 101, 1, 49)
    st = L.parse_status(LOG[3])
    assert (st.execs, st.event, st.cov, st.ft, st.corp) == (4096, "pulse", 144, 250, 10)
    assert L.parse_status(LOG[0]) is None and L.parse_status("stat::x: 1") is None


def test_final_stats_artifacts_and_crash_excerpt():
    assert [L.parse_final_execs(x) for x in LOG if L.parse_final_execs(x) is not None] == [85]
    written = [L.artifact_written(x) for x in LOG if L.artifact_written(x)]
    assert written == ["art/crash-4649776f2fd98acd11fca164a3f876f6bc568240"]
    assert [L.artifact_kind(n) for n in ("crash-1", "timeout-2", "oom-3", "leak-4", "slow-unit-5", "x")] == \
        ["crash", "timeout", "oom", "leak", None, None]
    ex = L.crash_excerpt(LOG)
    assert ex.startswith(" === Uncaught Python exception") and "Test unit written" in ex and "INITED" not in ex


def test_last_error_line():
    lines = ["INFO: Instrumenting x", "Traceback (most recent call last):", '  File "h.py", line 5',
             "ModuleNotFoundError: No module named 'nope'"]
    assert L.last_error_line(lines) == "ModuleNotFoundError: No module named 'nope'"
    assert L.last_error_line([]) == "(no output)"


def test_redact():
    text = "broker redis://:s3cret@h:6379/0 and rediss://u:pw@h/1, REDIS_PASSWORD=hunter2 token: abc"
    out = redact(text)
    assert "s3cret" not in out and "pw@" not in out and "hunter2" not in out and "abc" not in out
    assert "redis://:***@h:6379/0" in out


def test_child_env_carries_no_secrets(monkeypatch):
    monkeypatch.setenv("FUZZFARM_REDIS_URL", "redis://:s3cret@localhost:1/0")
    monkeypatch.setenv("REDIS_PASSWORD", "s3cret")
    env = child_env({"FUZZFARM_VARIANT": "buggy"}, pythonpath="/x")
    assert "s3cret" not in repr(env)
    assert env["PYTHONHASHSEED"] == "0" and env["PYTHONUNBUFFERED"] == "1" and env["FUZZFARM_VARIANT"] == "buggy"
    assert env["PYTHONPATH"].split(":")[0] == "/x"


def test_run_seeds_are_distinct_and_never_zero():
    seeds = {run_seed(s, r) for s in range(20) for r in range(20)}
    assert len(seeds) == 400 and 0 not in seeds
    assert run_seed(0, 0) == 1


def test_stats_cadence_is_the_jobs_and_survives_fuzzer_restarts(monkeypatch):
    """A fuzzer that restarts after every crash runs for less than the stats interval each
    time; the job must still stream stats about every interval (a per-process cadence sent
    nothing until the end)."""
    from fuzzfarm.engine import supervise as S

    clock = [100.0]
    monkeypatch.setattr(S.time, "monotonic", lambda: clock[0])
    sent = []
    job = S.JobState(lambda c: None, sent.append, interval_s=1.0)
    for run in range(6):  # six fuzzer runs of 0.6 s each, polled every 0.1 s
        for step in range(6):
            clock[0] += 0.1
            job.tick(current_execs=10 * step)
        job.run_ended(60)
    # 3.6 s of job: a snapshot at about 1, 2 and 3 s, execs counted across runs
    assert len(sent) == 3
    assert [s.execs for s in sent] == sorted(s.execs for s in sent) and sent[-1].execs > 60
    job.tick()
    assert len(sent) == 3  # not due yet


def test_supervise_polls_fast_only_in_the_childs_first_second():
    # Fast polls decide launch -> first failure of a shallow bug; later they only cost the
    # parent CPU that the fuzz child would have had (engine/supervise.py, POLL_S).
    from fuzzfarm.engine import supervise as sv
    assert sv.poll_interval(0.0) == sv.FAST_POLL_S < sv.POLL_S
    assert sv.poll_interval(sv.FAST_POLL_FOR_S - 0.01) == sv.FAST_POLL_S
    assert sv.poll_interval(sv.FAST_POLL_FOR_S) == sv.poll_interval(60.0) == sv.POLL_S
    assert sv.poll_interval(0.0, poll_s=0.01) == 0.01 and sv.poll_interval(5.0, poll_s=0.5) == 0.5
