"""``fuzzfarm web``: serve the web view of the farm (see fuzzfarm/web/)."""

from __future__ import annotations

import os
from types import ModuleType
from typing import Optional

import typer


def register(app: typer.Typer, cli: ModuleType | None = None) -> None:
    """Add ``web`` to ``app``. ``cli``: the fuzzfarm.cli module that owns ``app`` (its --redis
    state and error handling); by default the imported ``fuzzfarm.cli``."""
    import importlib
    C = cli or importlib.import_module("fuzzfarm.cli")

    @app.command()
    @C.errors_to_exit
    def web(host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (loopback unless a token is given)."),
            port: int = typer.Option(8765, "--port", "-p", help="TCP port."),
            token: Optional[str] = typer.Option(None, "--token", envvar="FUZZFARM_WEB_TOKEN", show_envvar=True,
                                                help="Enables cancel and group split/merge from the page (log in "
                                                     "with it); required for a non-loopback --host.")) -> None:
        """Serve the web view: campaigns live, bug groups and buckets, goroutine swimlanes."""
        from fuzzfarm.farm import redis_url
        from fuzzfarm.web import server
        if not 1 <= port <= 65535:
            raise C.CLIError(f"--port must be 1-65535, got {port}")
        try:
            server.check_bind(host, token)
        except server.ServeError as e:
            raise C.CLIError(str(e)) from None
        url = C._url()
        C._store(url)
        C.err.print(f"fuzzfarm web: {server.page_url(host, port)}  (Redis {redis_url.mask(url)}; "
                    f"{'token set: log in to change' if token else 'read-only'}; Ctrl-C stops)", markup=False)
        try:
            server.serve(url, host, port, token, log_level=os.environ.get("FUZZFARM_WEB_LOG", "warning"))
        except server.ServeError as e:
            raise C.CLIError(str(e)) from None


def start_background(url: str, console, port: int = 8765):
    """The web view for ``fuzzfarm demo``: in a thread on loopback (read-only), on ``port`` or,
    when that is taken, a free one; prints its URL. None (and one line why) when it cannot start."""
    from fuzzfarm.web import server
    for p in (port, 0):
        try:
            bg = server.Background(url, "127.0.0.1", p or _free_port()).start()
        except server.ServeError as e:
            last = e
            continue
        console.print(f"fuzzfarm demo: web view {bg.url} (read-only, up while the demo runs)", markup=False)
        return bg
    console.print(f"fuzzfarm demo: no web view ({last})", markup=False)
    return None


def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
