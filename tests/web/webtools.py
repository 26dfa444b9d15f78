"""Helpers of the web view tests: a ``fuzzfarm web`` subprocess and plain HTTP calls."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebServer:
    """``python -m fuzzfarm.cli web`` in a subprocess; its stderr goes to ``log``."""

    def __init__(self, url: str, log_path, *, token: str | None = None, host: str = "127.0.0.1"):
        self.log_path = log_path
        env = {**os.environ, "FUZZFARM_REDIS_URL": url, "PYTHONUNBUFFERED": "1"}
        env.pop("FUZZFARM_WEB_TOKEN", None)
        if token:
            env["FUZZFARM_WEB_TOKEN"] = token  # not on the command line: ps shows that to everyone
        # A free port can be taken by another process (another pytest process of the suite)
        # before the server binds it: the server then says "choose another --port" and exits.
        for attempt in range(3):
            self._start(env, host)
            if self._up() or attempt == 2 or "choose another --port" not in self.log_text():
                break
        assert self.proc.poll() is None, f"fuzzfarm web exited: {self.log_text()}"

    def _start(self, env: dict, host: str) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen([sys.executable, "-m", "fuzzfarm.cli", "web", "--host", host, "--port",
                                      str(self.port)], env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    def _up(self) -> bool:
        """True once it answers; False when it exited first."""
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                self.log.close()
                return False
            try:
                urllib.request.urlopen(self.base + "/campaigns", timeout=5).read()
                return True
            except OSError:
                assert time.monotonic() < deadline, f"fuzzfarm web did not come up: {self.log_text()}"
                time.sleep(0.2)

    def log_text(self) -> str:
        if not self.log.closed:
            self.log.flush()
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        self.log.close()


def post(url: str, data: bytes = b"", headers: dict | None = None) -> tuple[int, str]:
    req = urllib.request.Request(url, data=data, method="POST",
                                 headers={"Content-Type": "application/x-www-form-urlencoded", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
