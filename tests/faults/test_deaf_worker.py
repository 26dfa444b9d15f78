"""A worker whose Redis pub/sub connection is killed (``CLIENT KILL TYPE pubsub``: what a Redis
failover, a proxy reset or a middlebox idle timeout does) must not go silently deaf. kombu 5.7
leaves such a worker alive, answering nothing and taking no job; fuzzfarm's watchdog
(:mod:`fuzzfarm.farm.watchdog`) notices that its own pings go unanswered, says so in one log line
and exits 75, so a supervisor restarts it; the job it never took runs on the replacement."""

from __future__ import annotations

import time

import faultlib
from fuzzfarm.farm import store as S
from fuzzfarm.farm.embedded import RedisServer, Worker
from fuzzfarm.farm.watchdog import EXIT_DEAF

WATCHDOG_LINE = "fuzzfarm watchdog: this worker has not heard its own pings"


def _subscribers(r) -> int:
    return sum(1 for c in r.client_list() if c.get("cmd") in ("subscribe", "psubscribe"))


def test_pubsub_killed_worker_exits_with_one_line_and_its_replacement_runs_the_job(tmp_path):
    # a redis-server of its own: CLIENT KILL TYPE pubsub reaches every database's subscribers
    (tmp_path / "redis").mkdir()
    srv = RedisServer(str(tmp_path / "redis")).start()
    workers = []
    try:
        def worker(queue: str) -> Worker:
            # pings every 2 s instead of 5 (the default, measured in docs/RELIABILITY.md): a shorter test
            w = Worker(srv.url, [queue], env=faultlib.worker_env(FUZZFARM_WATCHDOG_INTERVAL_S="2"),
                       logfile=str(tmp_path / f"{queue}-{len(workers)}.log"))
            workers.append(w.start())
            return w

        fuzz, collect = worker("fuzz"), worker("collect")
        fuzz.wait_ready(), collect.wait_ready()
        with faultlib.publishing_to(srv.url) as st:
            faultlib.wait_until(lambda: _subscribers(st.r) >= 2, 30, "both workers subscribed")
            assert st.r.client_kill_filter(_type="pubsub") >= 2
            t0 = time.monotonic()
            cid = faultlib.submit(st, "ff-crashy", "fixed", jobs=1, duration=2)
            # both workers lost their subscription: each exits by itself, with status 75
            for w in (fuzz, collect):
                assert w.proc.wait(90) == EXIT_DEAF, w.log_text()[-2000:]
                assert w.log_text().count(WATCHDOG_LINE) == 1, w.log_text()[-2000:]
            detected_s = time.monotonic() - t0
            # the deaf fuzz worker took nothing: the job is still waiting for a worker
            assert faultlib.job_states(st, cid) == [S.JOB_QUEUED]
            # what a supervisor does (systemd Restart=always, Kubernetes, fuzzfarm up): start it again
            fuzz, collect = worker("fuzz"), worker("collect")
            faultlib.wait_until(lambda: faultlib.campaign_final(st, cid), 90, "the campaign to finish")
            assert faultlib.job_states(st, cid) == [S.JOB_DONE]
            recovered_s = time.monotonic() - t0
            assert fuzz.alive() and collect.alive()  # a healthy worker is left alone
            print(f"deaf workers exited after {detected_s:.1f} s; job done {recovered_s:.1f} s after the kill")
    finally:
        for w in workers:  # SIGKILL of each session: a cold stop of 4 workers took ~15 s (tested elsewhere)
            faultlib.hard_stop(w)
        srv.cleanup()
