"""``fuzzfarm worker`` serving both queues: one Celery worker per queue, in the foreground.

A single worker consuming ``fuzz,collect`` gives every pool process to whatever message comes
first; fuzz slices run for minutes, so the crashes they find were not triaged until the fuzzing
ended (first reproducer after 122 s instead of 5 s). Two workers, ``fuzz`` with ``-c N`` and
``collect`` with its own processes, keep triage going while the jobs fuzz. Both log to this
terminal; a signal to this process goes to both. A worker that exits is started again with the
restart policy of ``fuzzfarm up``'s supervisor (farm/supervisor.py); a worker that keeps dying
(5 times a minute, not counting exits with 75 after a Redis fault) stops the pair, and this
process exits, so the service manager (systemd, Kubernetes) restarts it.
"""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
import time

from .embedded import worker_command

FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT, signal.SIGHUP)


def commands(*, fuzz_concurrency: int, collect_concurrency: int, loglevel: str = "INFO",
             name: str | None = None) -> list[list[str]]:
    """The two worker command lines (node names ``fuzz-…@%h`` and ``collect-…@%h``, or
    ``NAME-fuzz@%h`` / ``NAME-collect@%h``)."""
    return [worker_command([q], concurrency=c, loglevel=loglevel, name=f"{name}-{q}" if name else None)
            for q, c in (("fuzz", fuzz_concurrency), ("collect", collect_concurrency))]


def run(cmds: list[list[str]], env: dict) -> int:
    """Run the Celery workers ``cmds`` in the foreground and keep them up with the restart policy
    of ``fuzzfarm up``'s supervisor (:func:`.supervisor.keep_up`): a worker that exits is started
    again (one that exits with 75 after a Redis fault, always, with a backoff), so a worker started
    by hand survives Redis restarts and outages with no service manager. A signal to this process
    goes to every worker and ends it; so does a worker left stopped by the policy (it kept dying),
    whose status this process then exits with."""
    from .supervisor import Service, keep_up, restart

    logging.basicConfig(level=logging.INFO, format="fuzzfarm worker: %(message)s", stream=sys.stderr)
    services = [Service(f"worker-{c[c.index('-Q') + 1]}" if "-Q" in c else f"worker-{i}", argv=c, logfile=None,
                        env=env, quit_signal=signal.SIGQUIT) for i, c in enumerate(cmds)]
    stopping: list[int] = []

    def forward(sig, _frame):
        stopping.append(sig)
        for s in services:
            if s.alive():
                s.proc.send_signal(sig)

    old = {s: signal.signal(s, forward) for s in FORWARDED}
    try:
        for s in services:
            s.start()
        while not stopping:
            time.sleep(0.5)
            if stopping:
                break
            keep_up(services, restart)
            gone = [s for s in services if s.proc is None]
            if gone:  # left stopped: stop the others (SIGQUIT: running tasks go back to the queue)
                for s in services:
                    s.quit()
                break
        for s in services:
            if s.proc is not None:
                try:
                    s.proc.wait(30)
                except subprocess.TimeoutExpired:
                    s.proc.kill()
                    s.proc.wait()
        if any(s.proc is None for s in services):
            return 1  # a worker kept dying (its last lines say why)
        rc = next((c for c in (s.proc.returncode for s in services) if c), 0)
        return rc if rc >= 0 else 128 - rc
    finally:
        for s, h in old.items():
            signal.signal(s, h)
