"""Half-open connections: every socket between a worker and Redis is black-holed for 5 s (left
open: no FIN, no RST, nothing comes back), then only new connections get through (``relay.py``).
What a middlebox losing its state, a NAT timeout or a re-routed link does. The worker must not
stay deaf: the next job completes within 60 s (the issue's bound; it was 123 s), none is lost,
none runs twice.

Who notices: the worker's Redis health checks (every connection kombu opens) or, if those miss,
its watchdog (``fuzzfarm/farm/watchdog.py``), which exits 75 for its supervisor; the test plays
the supervisor (systemd ``Restart=always``) and restarts a worker that exited."""

from __future__ import annotations

import re
import time

import pytest

import faultlib
from fuzzfarm.farm import store as S
from fuzzfarm.farm.embedded import Worker
from relay import Relay

BOUND_S = 60.0


def _ran(logs: list[str]) -> int:
    """Slices that ran their fuzzer to an end (a duplicate message refused by the slice claim or
    the job's state ends 'skipped' and is not counted)."""
    return sum(len(re.findall(r"fuzzfarm\.fuzz_job\[[^\]]+\] succeeded in [0-9.]+s: '(?:done|next)'", t))
               for t in logs)


TIMELINE = re.compile(r"ready\.|watchdog|BRPOP|pub/sub|fuzz_job\[|rescue:|Shutdown|another message")


def run_black_hole_drill(redis_url: str, redis_port: int, tmp_path, *, hole_s: float, env_over: dict) -> dict:
    """One idle fuzz worker behind the relay; black-hole ``hole_s``; a job submitted straight to
    Redis at once. Returns figures: recovery (s from the black hole to the job done), lost,
    doubled, worker restarts."""
    db = redis_url.rsplit("/", 1)[0]
    direct = db + "/5"
    env = faultlib.worker_env(**env_over)
    workers: list[Worker] = []

    with Relay("127.0.0.1", redis_port) as relay, faultlib.publishing_to(direct) as st:
        st.r.flushdb()
        relayed = direct.replace(f":{redis_port}/", f":{relay.port}/")

        def start() -> Worker:
            w = Worker(relayed, ["fuzz"], env=env, logfile=str(tmp_path / f"fuzz-{len(workers)}.log"),
                       name=f"holed-{len(workers)}").start()
            workers.append(w)
            return w

        try:
            start().wait_ready()
            time.sleep(1.0)  # idle, its connections established through the relay
            t0 = time.monotonic()
            relay.black_hole(hole_s)
            cid = faultlib.submit(st, "ff-crashy", "fixed", jobs=1, duration=2)
            restarts = 0
            while time.monotonic() - t0 < 150:
                if faultlib.campaign_final(st, cid):
                    break
                if not workers[-1].alive():  # the supervisor's part
                    restarts += 1
                    start()
                time.sleep(0.2)
            recovery = time.monotonic() - t0
            job = st.job(cid, 0)
            # The job's state is stored by the task before it returns; the worker logs the task's
            # "succeeded in" line after that, so on a loaded machine the log can lag the state
            # (seen: a done job with no slice counted). Wait for the line, bounded.
            deadline = time.monotonic() + 15
            logs = [w.log_text() for w in workers]
            while _ran(logs) == 0 and time.monotonic() < deadline:
                time.sleep(0.2)
                logs = [w.log_text() for w in workers]
            return {"recovery_s": recovery, "state": job.get("state"), "lost": int(job.get("lost", 0) or 0),
                    "rescued": sum(t.count("rescue: job") for t in logs),
                    "kombu_drops": sum(t.count("dropping stale connection") for t in logs),
                    "ran": _ran(logs), "elapsed_base": float(job.get("elapsed_base", 0) or 0),
                    "timeline": [f"{i}: {ln[:200]}" for i, t in enumerate(logs) for ln in t.splitlines()
                                 if TIMELINE.search(ln)], "restarts": restarts,
                    "exit_codes": [w.proc.returncode for w in workers[:-1]],
                    "logs": "\n".join(w.log_text()[-3000:] for w in workers)}
        finally:
            for w in workers:
                faultlib.hard_stop(w)


def _check(fig: dict) -> None:
    print(f"black hole: job done {fig['recovery_s']:.1f} s after it; worker restarts {fig['restarts']} "
          f"(exit codes {fig['exit_codes']}); slices run {fig['ran']}; lease takeovers {fig['lost']}; "
          f"messages republished by rescue {fig['rescued']}; stale connections dropped by kombu {fig['kombu_drops']}")
    print("\n".join(fig["timeline"]))
    assert fig["state"] == S.JOB_DONE, fig["logs"]
    assert fig["recovery_s"] < BOUND_S, fig["logs"]
    assert fig["lost"] == 0  # no slice was running: nothing for the lease janitor to take
    assert fig["ran"] == 1, fig["logs"]  # one slice, run once: nothing ran twice
    assert abs(fig["elapsed_base"] - 2.0) < 1.0, fig  # its fuzzing time counted once


@pytest.mark.slow
def test_half_open_black_hole_5s_default_settings(fault_farm, tmp_path):
    """The issue's drill with the product's defaults (watchdog every 5 s, 3 misses)."""
    _check(run_black_hole_drill(fault_farm.url, fault_farm.redis.port, tmp_path, hole_s=5.0, env_over={}))


def test_half_open_black_hole_fast(fault_farm, tmp_path):
    """The same drill with shorter health-check, janitor and rescue periods, so CI gets it in
    ~15 s (the default settings' drill and its figures: the slow tier, docs/RELIABILITY.md)."""
    _check(run_black_hole_drill(fault_farm.url, fault_farm.redis.port, tmp_path, hole_s=5.0,
                                env_over={"FUZZFARM_BROKER_HEALTH_CHECK_S": "2", "FUZZFARM_JANITOR_INTERVAL_S": "1",
                                          "FUZZFARM_ORPHAN_GRACE_S": "3"}))
