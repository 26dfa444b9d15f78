"""The local farm of ``fuzzfarm up`` / ``fuzzfarm down``: where it lives and how it is found.

One farm per installation, not per user: its workers run this installation's Python, so they can
run exactly the harnesses installed here, and two checkouts (each its own ``.venv``), or a harness venv
made with ``fuzzfarm venv``, each get a farm of their own (own Redis port, own data, own
``down``). Its name (:func:`farm_name`) is the project's directory and a short hash of the venv's
path, e.g. ``fuzzfarm-3f2a1b``; ``$FUZZFARM_FARM`` names another (a named farm that several
installations share on purpose). State lives under the user's data directory
(``$XDG_DATA_HOME/fuzzfarm/farms/NAME``, by default ``~/.local/share/fuzzfarm/farms/NAME``):

* ``farm.json`` (mode 0600): the URL (with the password of this Redis), the supervisor's PID
  and the PIDs of everything it started; written by :mod:`.supervisor`, removed when it stops;
* ``port`` and ``password``: chosen at the first ``up`` and kept, so the URL stays the same;
* ``redis/``: the redis-server's AOF (the farm's buckets survive ``down`` / ``up``);
* ``*.log``: the supervisor's, redis-server's and each worker's log.

Commands that are given no Redis (no ``--redis``, no ``$FUZZFARM_REDIS_URL``) use the running
local farm (:func:`running_url`, which the CLI hands ``redis_url.from_env``; a worker never does).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import time

STATE = "farm.json"
SUPERVISOR_MODULE = "fuzzfarm.farm.supervisor"


def data_dir() -> str:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "fuzzfarm")


FARM_ENV = "FUZZFARM_FARM"
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
VENV_DIRS = (".venv", "venv", ".env", "env")  # a venv inside the project: the project names the farm


def farm_name() -> str:
    """This installation's farm: ``$FUZZFARM_FARM``, else ``PROJECT-HASH`` where PROJECT is the
    directory holding the venv (a checkout's ``.venv``) or the venv's own name, and HASH the
    first 6 hex digits of the sha256 of the venv's real path."""
    named = os.environ.get(FARM_ENV)
    if named is not None:
        if not NAME_RE.fullmatch(named):
            from .embedded import LaunchError
            raise LaunchError(f"${FARM_ENV}={named!r} is not a farm name; use letters, digits, '.', '_' and '-' "
                              f"(at most 64), or unset it for this installation's farm")
        return named
    prefix = os.path.realpath(sys.prefix)
    base = os.path.basename(prefix)
    if base in VENV_DIRS:
        base = os.path.basename(os.path.dirname(prefix))
    base = re.sub(r"[^A-Za-z0-9_.-]+", "-", base).strip("-.")[:40] or "farm"
    return f"{base}-{hashlib.sha256(prefix.encode()).hexdigest()[:6]}"


def farm_dir() -> str:
    return os.path.join(data_dir(), "farms", farm_name())


def _private_write(path: str, text: str) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def write_state(state: dict, directory: str | None = None) -> None:
    _private_write(os.path.join(directory or farm_dir(), STATE), json.dumps(state, indent=1, sort_keys=True))


def read_state(directory: str | None = None) -> dict | None:
    try:
        with open(os.path.join(directory or farm_dir(), STATE)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def remove_state(directory: str | None = None) -> None:
    try:
        os.unlink(os.path.join(directory or farm_dir(), STATE))
    except FileNotFoundError:
        pass


def _remembered(name: str, make) -> str:
    """The value kept in ``farm_dir()/name``, made and kept on first use."""
    path = os.path.join(farm_dir(), name)
    try:
        with open(path) as f:
            value = f.read().strip()
        if value:
            return value
    except FileNotFoundError:
        pass
    value = str(make())
    _private_write(path, value + "\n")
    return value


def remembered_port() -> int:
    from .embedded import free_port
    return int(_remembered("port", free_port))


def remembered_password() -> str:
    return _remembered("password", lambda: secrets.token_urlsafe(18))


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def alive(pid: int | None, needle: str = "") -> bool:
    """``pid`` runs (not a zombie) and its command line holds ``needle`` (a reused PID does not)."""
    if not pid:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                return False
    except OSError:
        return False
    return needle in cmdline(pid)


def running(directory: str | None = None) -> dict | None:
    """The state of the local farm when its supervisor runs, else None."""
    st = read_state(directory)
    if st and alive(st.get("supervisor_pid"), SUPERVISOR_MODULE):
        return st
    return None


def running_url() -> str | None:
    st = running()
    return st.get("url") if st and st.get("status") == "up" else None


def started_pids(state: dict) -> list[tuple[int, str]]:
    """(pid, what its command line holds) of every process the state says was started."""
    out = [(state.get("supervisor_pid"), SUPERVISOR_MODULE), (state.get("redis_pid"), "redis-server")]
    out += [(s.get("pid"), s.get("needle", "")) for s in state.get("services", [])]
    return [(int(p), n) for p, n in out if p]


def start(*, fuzz_concurrency: int, collect_concurrency: int, env: dict | None = None,
          timeout: float = 90.0) -> dict:
    """Start the supervisor in the background and wait until the farm is up. Returns its state.
    Raises LaunchError (with the log to read) when it does not come up."""
    from .embedded import LaunchError
    d = farm_dir()
    os.makedirs(d, exist_ok=True)
    os.chmod(d, 0o700)
    stale = read_state(d)
    if stale:  # a supervisor that died (killed, reboot): stop what it left behind first
        stop_pids(stale)
        remove_state(d)
    remembered_port(), remembered_password()
    log_path = os.path.join(d, "supervisor.log")
    argv = [sys.executable, "-m", SUPERVISOR_MODULE, "--dir", d, "--fuzz-concurrency", str(fuzz_concurrency),
            "--collect-concurrency", str(collect_concurrency)]
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True, env={**os.environ, **(env or {})}, close_fds=True,
                                cwd=d)  # not the caller's directory: `python -m` would import from it
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        st = read_state(d)
        if st and st.get("supervisor_pid") == proc.pid and st.get("status") == "up":
            return st
        if proc.poll() is not None:
            raise LaunchError(f"the local farm did not start (supervisor exited with code {proc.returncode}); "
                              f"see {log_path}")
        time.sleep(0.1)
    stop(d)
    raise LaunchError(f"the local farm was not up within {timeout:.0f} s; see {log_path}")


def stop_pids(state: dict, timeout: float = 10.0) -> list[int]:
    """SIGKILL whatever of ``state``'s processes (and their sessions) still runs. Returns those PIDs."""
    left = [(p, n) for p, n in started_pids(state) if alive(p, n)]
    for pid, _ in left:
        for kill in (os.killpg, os.kill):  # workers lead a session of their own (pool, fuzzers)
            try:
                kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    deadline = time.monotonic() + timeout
    while any(alive(p, n) for p, n in left) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [p for p, _ in left]


def stop(directory: str | None = None, timeout: float = 60.0) -> dict | None:
    """Stop the local farm: SIGTERM to its supervisor (it stops its workers with SIGQUIT and
    redis-server with SIGTERM), then SIGKILL by PID for anything still there. Returns the
    state it stopped (None: nothing was running)."""
    d = directory or farm_dir()
    st = read_state(d)
    if st is None:
        return None
    sup = st.get("supervisor_pid")
    if alive(sup, SUPERVISOR_MODULE):
        os.kill(sup, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while alive(sup, SUPERVISOR_MODULE) and time.monotonic() < deadline:
            time.sleep(0.1)
        st = read_state(d) or st  # the PIDs of its last restarts
    st["killed"] = stop_pids(st)
    remove_state(d)
    return st
