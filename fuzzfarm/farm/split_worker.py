"""``fuzzfarm worker`` serving both queues: one Celery worker per queue, in the foreground.

A single worker consuming ``fuzz,collect`` gives every pool process to whatever message comes
first; fuzz slices run for minutes, so the crashes they find were not triaged until the fuzzing
ended (first reproducer after 122 s instead of 5 s). Two workers, ``fuzz`` with ``-c N`` and
``collect`` with its own processes, keep triage going while the jobs fuzz. Both log to this
terminal; a signal to this process goes to both; when one exits the other is stopped and this
process exits with its code, so the service manager (systemd, Kubernetes) restarts the pair.
"""

from __future__ import annotations

import signal
import subprocess
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
    procs = [subprocess.Popen(c, env=env) for c in cmds]

    def forward(sig, _frame):
        for p in procs:
            if p.poll() is None:
                p.send_signal(sig)

    old = {s: signal.signal(s, forward) for s in FORWARDED}
    try:
        while all(p.poll() is None for p in procs):
            time.sleep(0.5)
        first = next(p for p in procs if p.poll() is not None)
        for p in procs:  # one is gone: stop the other (SIGQUIT: its running tasks go back to the queue)
            if p.poll() is None:
                p.send_signal(signal.SIGQUIT)
        for p in procs:
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        return first.returncode if first.returncode >= 0 else 128 - first.returncode
    finally:
        for s, h in old.items():
            signal.signal(s, h)
