"""Serving the web view with uvicorn: in the foreground (``fuzzfarm web``) or in a thread
beside something else (``fuzzfarm demo``). Where it may listen is decided here, once."""

from __future__ import annotations

import ipaddress
import socket
import threading
import time

TOKEN_ENV = "FUZZFARM_WEB_TOKEN"
DEFAULT_PORT = 8765


class ServeError(Exception):
    """The server must not or cannot start; ``str`` says what to do."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """A host beyond loopback only with a token (whoever reaches the port sees the farm)."""
    if not is_loopback(host) and not token:
        raise ServeError(f"--host {host} is not a loopback address: give a token (--token T or ${TOKEN_ENV}) to "
                         f"serve the web view beyond this machine, or use --host 127.0.0.1")
    if token is not None and len(token.strip()) < 8:  # blanks count for nothing: "        " is no secret
        raise ServeError("the web token must be at least 8 characters other than spaces; choose a longer "
                         "--token (or $FUZZFARM_WEB_TOKEN)")


def page_url(host: str, port: int) -> str:
    h = f"[{host}]" if ":" in host and not host.startswith("[") else host
    if h in ("0.0.0.0", "[::]"):
        h = "127.0.0.1" if h == "0.0.0.0" else "[::1]"
    return f"http://{h}:{port}/"


def _config(url: str, host: str, port: int, token: str | None, log_level: str):
    import uvicorn

    from .app import create_app
    return uvicorn.Config(create_app(url, token), host=host, port=port, log_level=log_level, access_log=False,
                          server_header=False, lifespan="off")


def serve(url: str, host: str, port: int, token: str | None, *, log_level: str = "warning") -> None:
    """Serve until interrupted (Ctrl-C)."""
    import uvicorn
    check_bind(host, token)
    check_port(host, port)
    uvicorn.Server(_config(url, host, port, token, log_level)).run()


class Background:
    """The web view in a daemon thread; ``stop()`` ends it."""

    def __init__(self, url: str, host: str = "127.0.0.1", port: int = DEFAULT_PORT, token: str | None = None):
        import uvicorn
        check_bind(host, token)
        check_port(host, port)
        self.url = page_url(host, port)
        self.server = uvicorn.Server(_config(url, host, port, token, "error"))
        self.server.install_signal_handlers = lambda: None  # the main thread keeps its own handlers
        self.thread = threading.Thread(target=self.server.run, name="fuzzfarm-web", daemon=True)

    def start(self, timeout: float = 10.0) -> "Background":
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise ServeError(f"the web view did not start on {self.url}")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


def check_port(host: str, port: int) -> None:
    """``host:port`` can be listened on now (ServeError saying to choose another --port if not)."""
    if port == 0:
        return
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(fam, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host.strip("[]"), port))
        except OSError as e:
            raise ServeError(f"cannot listen on {host}:{port} ({e.strerror}); choose another --port") from None
