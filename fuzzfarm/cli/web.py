"""``fuzzfarm web``: serve the web view of the farm (see fuzzfarm/web/)."""

from __future__ import annotations

import os
from typing import Optional

import typer

from fuzzfarm.cli import _app as C


def register(app: typer.Typer) -> None:
    """Add ``web`` to ``app`` (``C``: the --redis state and error handling it shares)."""

    @app.command()
    @C.errors_to_exit
    def web(host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (loopback unless a token is given)."),
            port: Optional[int] = typer.Option(None, "--port", "-p", show_default=False,
                                               help="TCP port (default 8765)."),
            token: Optional[str] = typer.Option(None, "--token", envvar="FUZZFARM_WEB_TOKEN", show_envvar=True,
                                                help="Enables cancel and group split/merge from the page (log in "
                                                     "with it); required for a non-loopback --host.")) -> None:
        """Serve the web view: campaigns live, bug groups and buckets, goroutine swimlanes."""
        from fuzzfarm.farm import redis_url
        from fuzzfarm.web import server
        asked = port
        port = server.DEFAULT_PORT if port is None else port
        if not 1 <= port <= 65535:
            raise C.CLIError(f"--port must be 1-65535, got {port}")
        try:
            server.check_bind(host, token)
        except server.ServeError as e:
            raise C.CLIError(str(e)) from None
        url = C._url()
        C._store(url)
        farm_view = local_farm_view(url, host, asked, token)
        if farm_view:  # nothing to start: say where it is
            C.out.print(f"fuzzfarm web: the local farm already serves the web view of this Redis at {farm_view} "
                        f"(read-only; it stays up with the farm, `fuzzfarm down` stops it)", markup=False)
            return
        try:  # before the URL is printed: a taken port is said as such, never a URL that serves nothing
            server.check_port(host, port)
        except server.ServeError as e:
            raise C.CLIError(str(e)) from None
        C.err.print(f"fuzzfarm web: {server.page_url(host, port)}  (Redis {redis_url.mask(url)}; "
                    f"{'token set: log in to change' if token else 'read-only'}; Ctrl-C stops)", markup=False)
        try:
            server.serve(url, host, port, token, log_level=os.environ.get("FUZZFARM_WEB_LOG", "warning"))
        except server.ServeError as e:
            raise C.CLIError(str(e)) from None


def local_farm_view(url: str, host: str, port: int | None, token: str | None) -> str | None:
    """The URL of the web view the local farm (``fuzzfarm up``) already serves for Redis ``url``,
    when it is what ``fuzzfarm web`` was asked for: loopback, read-only (no token), on ``port`` or
    no port asked, and something answers there. None otherwise (then this command serves one)."""
    import socket
    from urllib.parse import urlsplit

    from fuzzfarm.farm import local
    from fuzzfarm.web import server
    if token or not server.is_loopback(host):
        return None
    st = local.running()
    if not st or st.get("url") != url:
        return None
    svc = next((s for s in st.get("services", []) if s.get("url")), None)
    if not svc or svc.get("pid") == os.getpid() or not local.alive(svc.get("pid"), svc.get("needle", "")):
        return None  # the supervisor is (re)starting it: this may be that very start
    farm_port = urlsplit(svc["url"]).port
    if port is not None and port != farm_port:
        return None
    try:  # it listens (a web view the supervisor just started may not yet)
        socket.create_connection(("127.0.0.1", farm_port), timeout=2).close()
    except OSError:
        return None
    return svc["url"]


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
