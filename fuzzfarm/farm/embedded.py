"""Start and stop a private farm on this machine: a redis-server and Celery worker processes.

Used by ``fuzzfarm demo`` and by the end-to-end tests (the same code, so the tests exercise
what users run). Everything started here is stopped here:

* ``redis-server`` on a free loopback port, AOF on, in a temporary directory;
* workers are ``python -m celery -A fuzzfarm.farm worker`` subprocesses in their own session,
  stopped with SIGQUIT (cold shutdown after the configured soft-shutdown window: unacked
  messages go straight back to the queue, docs/TRAPS.md#g16) and, if they linger, SIGKILL to the whole
  process group. Fuzzers die with their pool child (PDEATHSIG, set by the engine, docs/TRAPS.md#g14).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid

import redis

from . import redis_url


class LaunchError(RuntimeError):
    """Something this launcher starts did not come up; ``str`` says what to do."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _PortTaken(Exception):
    pass


def _port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def redis_server_binary() -> str | None:
    return shutil.which("redis-server") or (
        "/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server") else None)


class _Launched:
    """What a launcher started in a work directory: ``with X() as x`` starts it and, on the way out,
    stops it and removes the work directory when it made that directory itself (``_own_dir``)."""

    def cleanup(self) -> None:
        self.stop()
        if self._own_dir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc) -> None:
        self.cleanup()


class RedisServer(_Launched):
    """A private ``redis-server``: loopback, free port, AOF on, data in ``workdir``."""

    def __init__(self, workdir: str | None = None, *, port: int | None = None, password: str | None = None,
                 tls: tuple[str, str, str] | None = None, extra_args: list[str] | None = None):
        """``tls``: (certificate, key, CA certificate) files: serve TLS only (``rediss://``)."""
        self._own_dir = workdir is None
        self.workdir = workdir or tempfile.mkdtemp(prefix="fuzzfarm-redis-")
        self._auto_port = port is None
        self.port = port or free_port()
        self.password = password
        self.tls = tls
        self.extra_args = list(extra_args or [])
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        if self.tls:
            return f"rediss://{auth}127.0.0.1:{self.port}/0?ssl_ca_certs={self.tls[2]}"
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 15.0) -> "RedisServer":
        """Start it and wait until it answers. A free port can be taken by another process between
        ``free_port()`` and redis-server's bind (another farm or test process starting at the same
        moment): then ours exits, or the one answering is not ours (another redis-server's
        ``process_id``); with a port picked here, its first start tries another free port (a
        restart keeps its port: clients hold its URL)."""
        for attempt in range(5):
            try:
                self._start_once(timeout)
                self._auto_port = False
                return self
            except _PortTaken:
                if not self._auto_port or attempt == 4:
                    raise LaunchError(f"port {self.port} is taken by another process; choose another port") from None
                self.port = free_port()
        raise AssertionError("unreachable")

    def _start_once(self, timeout: float) -> "RedisServer":
        binary = redis_server_binary()
        if binary is None:
            raise LaunchError("redis-server is not installed; install it (apt-get install -y redis-server) "
                              f"or set ${redis_url.ENV} to a running Redis")
        ports = (["--port", "0", "--tls-port", str(self.port), "--tls-cert-file", self.tls[0], "--tls-key-file",
                  self.tls[1], "--tls-ca-cert-file", self.tls[2], "--tls-auth-clients", "no"]
                 if self.tls else ["--port", str(self.port)])
        args = [binary, *ports, "--bind", "127.0.0.1", "--dir", self.workdir,
                "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
                "--daemonize", "no", "--protected-mode", "yes", "--logfile", "redis.log"]
        if self.password:
            args += ["--requirepass", self.password]
        args += self.extra_args
        self.proc = subprocess.Popen(args, cwd=self.workdir, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        client = redis.Redis.from_url(self.url, socket_connect_timeout=1, socket_timeout=2)
        deadline = time.monotonic() + timeout
        try:
            while True:
                if self.proc.poll() is not None:
                    if _port_in_use(self.port):
                        raise _PortTaken()
                    raise LaunchError(f"redis-server exited with code {self.proc.returncode} at start; "
                                      f"see {os.path.join(self.workdir, 'redis.log')}")
                try:
                    pid = client.info("server").get("process_id")
                    break
                except redis.AuthenticationError:  # another server, with another password
                    self.stop()
                    raise _PortTaken() from None
                except redis.RedisError:
                    if time.monotonic() > deadline:
                        self.stop()
                        raise LaunchError(f"redis-server on port {self.port} did not answer within {timeout:.0f} s")
                    time.sleep(0.05)
        finally:
            client.close()
        if pid != self.proc.pid:  # someone else's redis-server answers on this port
            self.stop()
            raise _PortTaken()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()  # SIGTERM: redis fsyncs the AOF and exits
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


class Worker:
    """One ``celery -A fuzzfarm.farm worker`` process for ``queues``."""

    def __init__(self, url: str, queues: list[str], *, concurrency: int = 1, name: str | None = None,
                 logfile: str | None = None, env: dict | None = None, loglevel: str = "INFO"):
        self.url = url
        self.queues = list(queues)
        self.concurrency = concurrency
        self.name = name or f"{'+'.join(self.queues)}-{uuid.uuid4().hex[:6]}"
        self.logfile = logfile or os.path.join(tempfile.gettempdir(), f"fuzzfarm-worker-{self.name}.log")
        self.env = dict(env or {})
        self.loglevel = loglevel
        self.proc: subprocess.Popen | None = None
        self._log = None

    def command(self) -> list[str]:
        return worker_command(self.queues, concurrency=self.concurrency, name=self.name,
                              loglevel=self.loglevel)

    def start(self) -> "Worker":
        env = {**os.environ, **self.env, redis_url.ENV: self.url, "PYTHONUNBUFFERED": "1"}
        self._log = open(self.logfile, "ab")
        self.proc = subprocess.Popen(self.command(), env=env, stdin=subprocess.DEVNULL, stdout=self._log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        return self

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Wait until the worker logs that it is ready (consuming its queues)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc is None or self.proc.poll() is not None:
                raise LaunchError(f"worker {self.name} exited at start (code "
                                  f"{self.proc.returncode if self.proc else '?'}); see {self.logfile}")
            with open(self.logfile, "rb") as f:
                if b" ready." in f.read():
                    return
            time.sleep(0.1)
        raise LaunchError(f"worker {self.name} not ready within {timeout:.0f} s; see {self.logfile}")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def quit(self) -> None:
        """Ask for a cold shutdown (SIGQUIT): running tasks go back to the queue at once (docs/TRAPS.md#g16)."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.kill(self.proc.pid, signal.SIGQUIT)
            except ProcessLookupError:
                pass

    def stop(self, timeout: float = 20.0) -> int | None:
        """:meth:`quit`, wait up to ``timeout``, then SIGKILL whatever is left in its session."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.quit()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                pass
        try:  # whatever is left in its session (pool children, fuzzers)
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            pass
        rc = self.proc.returncode
        if self._log:
            self._log.close()
            self._log = None
        return rc

    def log_text(self) -> str:
        try:
            with open(self.logfile, errors="replace") as f:
                return redis_url.mask_text(f.read(), self.url)
        except OSError:
            return ""


def node_name(queues: list[str], name: str | None = None) -> str:
    """The worker's Celery node name: ``NAME@%h``, by default ``<queues>-<random>@%h``, so two
    workers on one host are two nodes (``celery inspect ping``, Flower), never one
    ``celery@host`` (DuplicateNodenameWarning)."""
    if name and "@" in name:
        return name
    return f"{name or '+'.join(queues) + '-' + uuid.uuid4().hex[:6]}@%h"


def worker_command(queues: list[str], *, concurrency: int = 1, name: str | None = None,
                   loglevel: str = "INFO", extra: list[str] | None = None) -> list[str]:
    """The plain Celery command line for a farm worker (what ``fuzzfarm worker`` runs). ``-E``:
    task events on, so Flower and ``celery events`` see the tasks (a handful of small messages
    per fuzz slice or triage step). ``--heartbeat-interval``: a worker-heartbeat event every
    HEARTBEAT_INTERVAL_S instead of Celery's 2 s (Flower and ``celery events`` read the interval
    from the event itself, so they still see the node online; fuzzfarm's own liveness checks are
    the watchdog and the slice leases, not these events)."""
    return [sys.executable, "-m", "celery", "-A", "fuzzfarm.farm", "worker", "-Q", ",".join(queues),
            "-c", str(concurrency), "-l", loglevel, "--without-mingle", "--without-gossip", "-E",
            "--heartbeat-interval", str(HEARTBEAT_INTERVAL_S), "-n", node_name(queues, name), *(extra or [])]


# Seconds between a node's worker-heartbeat events (a PUBLISH each; Celery's default is 2).
HEARTBEAT_INTERVAL_S = 10


class Farm(_Launched):
    """A redis-server (unless ``url`` is given) plus a fuzz worker and a collect worker.

    ``with Farm() as farm: ... farm.url ...`` stops everything it started on exit.
    """

    def __init__(self, url: str | None = None, *, fuzz_concurrency: int = 2, collect_concurrency: int = 2,
                 workdir: str | None = None, worker_env: dict | None = None, workers: bool = True,
                 redis_port: int | None = None, redis_password: str | None = None):
        """``redis_port`` / ``redis_password``: for the redis-server started here (default: a
        free port, no password); ``fuzzfarm up`` keeps one port and password across restarts."""
        self._own_dir = workdir is None
        self.workdir = workdir or tempfile.mkdtemp(prefix="fuzzfarm-")
        self.redis = None if url else RedisServer(os.path.join(self.workdir, "redis"), port=redis_port,
                                                  password=redis_password)
        if self.redis:
            os.makedirs(self.redis.workdir, exist_ok=True)
        self._url = url
        self.fuzz_concurrency = fuzz_concurrency
        self.collect_concurrency = collect_concurrency
        self.worker_env = worker_env or {}
        self.with_workers = workers
        self.workers: list[Worker] = []

    @property
    def url(self) -> str:
        return self._url or self.redis.url

    def start(self, ready_timeout: float = 60.0) -> "Farm":
        try:
            if self.redis:
                self.redis.start()
            if self.with_workers:
                self.workers = [
                    Worker(self.url, ["fuzz"], concurrency=self.fuzz_concurrency, env=self.worker_env,
                           logfile=os.path.join(self.workdir, "worker-fuzz.log"), name=f"fuzz-{uuid.uuid4().hex[:6]}"),
                    Worker(self.url, ["collect"], concurrency=self.collect_concurrency, env=self.worker_env,
                           logfile=os.path.join(self.workdir, "worker-collect.log"),
                           name=f"collect-{uuid.uuid4().hex[:6]}"),
                ]
                for w in self.workers:
                    w.start()
                for w in self.workers:
                    w.wait_ready(ready_timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        for w in self.workers:
            w.quit()
        for w in self.workers:
            w.stop()
        if self.redis:
            self.redis.stop()
