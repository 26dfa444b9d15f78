"""The supervisor of the local farm (``fuzzfarm up`` starts it in the background):

    python -m fuzzfarm.farm.supervisor --dir DIR [--fuzz-concurrency N] [--collect-concurrency N]

It starts, with :class:`fuzzfarm.farm.embedded.Farm` (the launcher of ``fuzzfarm demo`` and
the tests), a redis-server on the port remembered in DIR (AOF in ``DIR/redis``, password from
``DIR/password``) and one Celery worker per role: ``fuzz`` and a separate ``collect``, so crash
triage never waits behind fuzzing. It restarts any of them that dies (redis-server on the same
port and AOF, so nothing is lost), records every PID in ``DIR/farm.json``, and on SIGTERM or
SIGINT stops them all (workers with SIGQUIT: running jobs go back to the queue).

More processes (e.g. a web view) are one :class:`Service` more in :func:`services`.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import subprocess
import sys
import time

from . import local
from .embedded import Farm, Worker

log = logging.getLogger("fuzzfarm.supervisor")
POLL_S = 1.0
# A process that dies more often than this within RESTART_WINDOW_S is left dead (and said so).
MAX_RESTARTS, RESTART_WINDOW_S = 5, 60.0


class Service:
    """A supervised process: a farm :class:`Worker` (already made by the Farm), or any command
    (``argv``) logging to ``logfile``."""

    def __init__(self, name: str, *, worker: Worker | None = None, argv: list[str] | None = None,
                 logfile: str | None = None, env: dict | None = None, needle: str = "", url: str | None = None,
                 quit_signal: int = signal.SIGTERM):
        """``logfile=None`` with ``argv``: the process logs to this process's terminal (``fuzzfarm
        worker``). ``quit_signal``: how :meth:`quit` asks it to stop (SIGQUIT for a Celery worker:
        its running tasks go back to the queue)."""
        self.name, self.worker, self.argv, self.logfile, self.env = name, worker, argv, logfile, env or {}
        self.url = url  # what it serves, for a service that does (the web view)
        self.needle = needle or ("celery" if worker else (argv or [""])[0])
        self.quit_signal = quit_signal
        self.proc: subprocess.Popen | None = worker.proc if worker else None
        self.restarts: list[float] = []   # deaths counted toward MAX_RESTARTS
        self.tempfails = 0                # exits with TEMPFAIL in a row (Redis away): backoff, never given up
        self.not_before = 0.0             # no restart before this time (backoff)

    def start(self) -> None:
        if self.worker:
            self.worker.start()
            self.worker.wait_ready()
            self.proc = self.worker.proc
            return
        if self.logfile is None:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, env={**os.environ, **self.env})
            return
        with open(self.logfile, "ab") as f:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT,
                                         start_new_session=True, env={**os.environ, **self.env})

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def quit(self) -> None:
        if self.worker:
            self.worker.quit()
        elif self.alive():
            self.proc.send_signal(self.quit_signal)

    def stop(self) -> None:
        if self.worker:
            self.worker.stop()
        elif self.proc is not None:
            self.quit()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                pass
            if self.logfile is not None:  # a session of its own: whatever is left in it
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            elif self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()

    def record(self) -> dict:
        if self.proc is not None:
            self.last_pid = self.proc.pid
        return {"name": self.name, "pid": getattr(self, "last_pid", None), "needle": self.needle,
                "log": self.worker.logfile if self.worker else self.logfile,
                "queues": self.worker.queues if self.worker else [], "restarts": len(self.restarts),
                **({"url": self.url} if self.url else {})}


# The web view's port: this one when it is free at `up`, else any free loopback port.
WEB_PORT = 8765


def _web_port(wanted: int) -> int:
    import socket
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", wanted))
            return wanted
        except OSError:
            pass
    from .embedded import free_port
    return free_port()


def services(farm: Farm, args) -> list[Service]:
    """What the supervisor keeps running besides redis-server: the workers, and the web view
    (``fuzzfarm web``: loopback, read-only, the Redis URL in its environment, never on its
    command line) unless ``--no-web``."""
    out = [Service(f"worker-{'+'.join(w.queues)}", worker=w) for w in farm.workers]
    if not getattr(args, "no_web", False):
        port = _web_port(WEB_PORT)
        out.append(Service("web", argv=[sys.executable, "-m", "fuzzfarm.cli", "web", "--port", str(port)],
                           logfile=os.path.join(farm.workdir, "web.log"), env={"FUZZFARM_REDIS_URL": farm.url},
                           needle="fuzzfarm.cli", url=f"http://127.0.0.1:{port}/"))
    return out


def keep_up(services: list[Service], restart) -> bool:
    """One round of the restart policy (``fuzzfarm up``'s supervisor and ``fuzzfarm worker``):
    start again every service that exited, with ``restart(name, start, rc)``. A death (an exit
    status other than 0 and TEMPFAIL) counts toward ``MAX_RESTARTS`` in ``RESTART_WINDOW_S``, past
    which the service is left stopped (``proc`` None), said so once. An exit with TEMPFAIL (75: the
    worker met a fault outside itself, Redis away or refusing writes, and asks to be started
    again: farm/watchdog.py, farm/reconnect.py) never leaves it stopped: it is restarted after a
    backoff (1 s, doubling, at most ``TEMPFAIL_BACKOFF_MAX_S``). True when something changed."""
    changed = False
    now = time.time()
    for s in services:
        if s.proc is None or s.alive():
            continue
        rc = s.proc.returncode
        if rc == TEMPFAIL:
            if not s.not_before:
                s.not_before = now + min(TEMPFAIL_BACKOFF_MAX_S, 2.0 ** s.tempfails)
                s.tempfails += 1
                log.warning("%s exited with status %d (a fault outside it: Redis away or refusing writes); "
                            "starting it again in %.0f s", s.name, rc, s.not_before - now)
            if now < s.not_before:
                continue
        else:
            s.tempfails = 0
            s.restarts = [t for t in s.restarts if now - t < RESTART_WINDOW_S]
            if len(s.restarts) >= MAX_RESTARTS:
                log.error("%s died %d times in %.0f s; left stopped (see %s)", s.name, len(s.restarts),
                          RESTART_WINDOW_S, s.record()["log"] or "its output above")
                s.proc = None
                changed = True
                continue
            if rc != 0:  # only deaths count towards the restart limit; a warm shutdown is an operator's restart
                s.restarts.append(now)
        s.not_before = 0.0
        if s.worker:
            s.worker.stop()  # reap it and whatever is left in its session
        changed |= restart(s.name, s.start, rc)
    return changed


def restart(what: str, start, rc: int | None = None) -> bool:
    """Start ``what`` again (``start()``), with one log line saying why."""
    if rc == 0:  # a warm shutdown (SIGTERM: a rolling restart), not a death
        log.info("%s exited cleanly (code 0, a warm shutdown); starting it again", what)
    else:
        log.warning("%s died%s; restarting it", what, "" if rc is None else f" (exit code {rc})")
    try:
        start()
        return True
    except Exception as e:  # noqa: BLE001 - keep supervising the others
        log.error("could not restart %s: %s", what, e)
        return False


TEMPFAIL = 75
TEMPFAIL_BACKOFF_MAX_S = 30.0


class Supervisor:
    def __init__(self, args):
        self.dir = args.dir
        self.args = args
        self.farm = Farm(workdir=self.dir, fuzz_concurrency=args.fuzz_concurrency,
                         collect_concurrency=args.collect_concurrency,
                         redis_port=int(args.port or local.remembered_port()),
                         redis_password=local.remembered_password())
        self.started = time.time()
        self.redis_pid: int | None = None
        self.services: list[Service] = []
        self.stopping = False

    def write(self, status: str) -> None:
        r = self.farm.redis
        if r.proc is not None:  # after a stop, the state keeps the PIDs it had (`down` checks them)
            self.redis_pid = r.proc.pid
        local.write_state({"status": status, "url": self.farm.url, "port": r.port, "dir": self.dir,
                           "supervisor_pid": os.getpid(), "redis_pid": self.redis_pid,
                           "redis_log": os.path.join(r.workdir, "redis.log"), "started": self.started,
                           "services": [s.record() for s in self.services]}, self.dir)

    def start(self) -> None:
        self.started = time.time()
        self.farm.start()  # redis-server, then a fuzz and a collect worker, each ready
        self.services = services(self.farm, self.args)
        for s in self.services:
            if not s.alive():
                s.start()
        self.write("up")
        log.info("local farm up: redis on port %d, %s", self.farm.redis.port,
                 ", ".join(f"{s.name} pid {s.proc.pid}" for s in self.services))

    def _restart(self, what: str, start, rc: int | None = None) -> bool:
        return restart(what, start, rc)

    def tick(self) -> None:
        r = self.farm.redis
        changed = False
        if r.proc is not None and r.proc.poll() is not None:
            changed |= self._restart("redis-server", r.start)
        changed |= keep_up(self.services, self._restart)
        if changed:
            self.write("up")

    def stop(self, *_sig) -> None:
        self.stopping = True

    def shutdown(self) -> None:
        for s in self.services:
            s.quit()
        for s in self.services:
            s.stop()
        self.farm.redis.stop()
        self.write("stopped")

    def run(self) -> int:
        signal.signal(signal.SIGTERM, self.stop)
        signal.signal(signal.SIGINT, self.stop)
        try:
            self.start()
            while not self.stopping:
                time.sleep(POLL_S)
                if not self.stopping:
                    self.tick()
        finally:
            self.shutdown()
        log.info("local farm stopped")
        return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fuzzfarm.farm.supervisor")
    ap.add_argument("--dir", required=True)
    ap.add_argument("--port", type=int, default=None)
    ap.add_argument("--fuzz-concurrency", type=int, default=2)
    ap.add_argument("--collect-concurrency", type=int, default=2)
    ap.add_argument("--no-web", action="store_true", help="Do not keep the web view up.")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stdout)
    return Supervisor(args).run()


if __name__ == "__main__":
    raise SystemExit(main())
