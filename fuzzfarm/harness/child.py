"""The one way a harness runs in a child process: the parent's :func:`run_child` and the child's
:func:`child_main`, with the request and the result as JSON files (never pickle); and the process
plumbing under it and under the fuzz and walk children (``fuzzfarm/engine/supervise.py``).

A child process cannot outlive its parent and is stopped with its whole group.

Each child gets its own session (``start_new_session``) so ``killpg`` reaches everything it
forks (libFuzzer's ``-merge`` inner runs), and ``PR_SET_PDEATHSIG`` = SIGKILL so it dies with
the process that spawned it, e.g. a Celery pool child killed by the OOM killer or a hard time
limit (docs/TRAPS.md#g13, docs/TRAPS.md#g14). PDEATHSIG fires when the spawning *thread* exits, so spawn
and wait in the same thread.
"""

from __future__ import annotations

import base64
import ctypes
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
from typing import IO, Callable, Sequence

PR_SET_PDEATHSIG = 1

try:
    _prctl = ctypes.CDLL(None, use_errno=True).prctl  # resolved before any fork
except (OSError, AttributeError):  # not Linux: best effort, the session kill still works
    _prctl = None


def _child_setup(parent_pid: int, data_limit: int | None) -> None:
    # Runs between fork and exec: only async-signal-safe work (no imports, no locks).
    if _prctl is not None:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(137)
    if data_limit is not None:
        resource.setrlimit(resource.RLIMIT_DATA, (data_limit, data_limit))


def spawn(argv: Sequence[str], *, env: dict, cwd: str, stdout: IO | int,
          stdin: int = subprocess.DEVNULL, memory_limit_mb: int | None = None) -> subprocess.Popen:
    """Start ``argv`` in a new session with PDEATHSIG; stdout and stderr both go to ``stdout``.
    ``memory_limit_mb`` caps the heap (RLIMIT_DATA): Python then raises MemoryError."""
    parent = os.getpid()
    limit = memory_limit_mb << 20 if memory_limit_mb else None
    return subprocess.Popen(list(argv), env=env, cwd=cwd, stdin=stdin, stdout=stdout,
                            stderr=subprocess.STDOUT, start_new_session=True,
                            preexec_fn=lambda: _child_setup(parent, limit), close_fds=True)


def kill_group(proc: subprocess.Popen, timeout: float = 5.0) -> int | None:
    """SIGKILL the process group of ``proc`` and reap ``proc``; returns its exit status."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def run_bounded(argv: Sequence[str], *, env: dict, cwd: str, timeout: float,
                memory_limit_mb: int | None = None, start_marker: str | None = None,
                start_timeout: float = 300.0) -> tuple[int | None, str]:
    """Run ``argv`` to completion or kill its group after ``timeout`` seconds.

    Returns ``(returncode, output)``; returncode is None when it was killed for overrunning.
    With ``start_marker``, ``timeout`` counts from the output line ``start_marker`` (the child's
    setup, e.g. a harness import, is not what is being timed), which must come within
    ``start_timeout``; a child killed before it printed the marker returns ``NOT_STARTED``.
    """
    if start_marker is not None:
        return _run_after_marker(argv, env=env, cwd=cwd, timeout=timeout, memory_limit_mb=memory_limit_mb,
                                 marker=start_marker, start_timeout=start_timeout)
    proc = spawn(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, memory_limit_mb=memory_limit_mb)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, (out or b"").decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        kill_group(proc)
        out, _ = proc.communicate()
        return None, (out or b"").decode("utf-8", "replace")
    finally:
        if proc.poll() is None:
            kill_group(proc)


# Only these variables reach a fuzzer or replay process: nothing like FUZZFARM_REDIS_URL or a
# broker password can leak into a harness, its output or a crash log.
_ENV_ALLOW = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "VIRTUAL_ENV", "PYTHONPATH", "LD_LIBRARY_PATH",
              "XDG_CACHE_HOME", "FUZZFARM_CODE_CACHE",  # where instrumented code is cached (fuzzfarm/instrument.py)
              # run options a harness process reads, set alike on every machine (README, docs/timing.md):
              # without them here a worker's setting never reached the runs it was meant for
              "FUZZFARM_MAX_STARVATION_S", "FUZZFARM_RACE")


def child_env(extra: dict | None = None, *, pythonpath: str | None = None) -> dict:
    """A minimal environment for a harness process: the allow-list above, PYTHONHASHSEED pinned
    to 0 (same input, same run in every process: the fuzz child, intake, the minimizer and the
    fix check see the run an input was found with; the verification replays set their own seed
    through ``extra``, docs/VERDICTS.md "Hash seeds"), PYTHONUNBUFFERED=1 (``atheris.Fuzz`` ends
    with C ``exit()``, docs/TRAPS.md#g7), plus ``extra``; ``pythonpath`` is prepended. Never
    PYTHONDONTWRITEBYTECODE, even when the caller's environment has it (see below)."""
    env = {k: v for k, v in os.environ.items() if k in _ENV_ALLOW}
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONUNBUFFERED"] = "1"
    # Bytecode is written and reused: a child that compiled fuzzfarm and the harness from source
    # on every start spent ~40% of its start-up in compile() (docs/BENCHMARKS.md#startup).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.update(extra or {})
    return env


NOT_STARTED = -(10**6)  # run_bounded's returncode: killed before it printed its start marker


def _run_after_marker(argv, *, env, cwd, timeout, memory_limit_mb, marker, start_timeout):
    import threading
    import time

    proc = spawn(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, memory_limit_mb=memory_limit_mb)
    lines: list[bytes] = []
    started = threading.Event()
    want = marker.encode()

    def read() -> None:
        for ln in proc.stdout:
            lines.append(ln)
            if ln.rstrip(b"\r\n") == want:
                started.set()
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    rc: int | None
    try:
        t0 = time.monotonic()
        while not started.is_set() and proc.poll() is None and time.monotonic() - t0 < start_timeout:
            started.wait(0.05)
        if not started.is_set() and proc.poll() is None:
            kill_group(proc)
            rc = NOT_STARTED
        else:
            try:
                proc.wait(timeout=timeout)
                rc = proc.returncode
            except subprocess.TimeoutExpired:
                kill_group(proc)
                rc = None
    finally:
        if proc.poll() is None:
            kill_group(proc)
    reader.join(5)
    return rc, b"".join(lines).decode("utf-8", "replace")


# ---------------------------------------------------------------- one child, request -> result
REQUEST, RESULT = "request.json", "result.json"  # in the child's working directory, a fresh temp dir
# Printed (and flushed) once the harness is imported, before its input runs: with ``timed_from_load``
# the time limit starts here, so a slow import never turns a crash into a timeout.
LOADED = "fuzzfarm-runone: harness loaded"


class ChildRun:
    """What :func:`run_child` saw: ``rc`` (None: killed for overrunning; ``NOT_STARTED``: killed
    before the harness was imported), ``result`` (the child's JSON answer, None without one),
    ``output`` (its stdout and stderr) and ``files`` (those asked for in ``keep`` it left)."""

    def __init__(self, rc, result, output: str, files: dict):
        self.rc, self.result, self.output, self.files = rc, result, output, files

    def tail(self) -> str:
        """The last output line, or ``(no output)``."""
        return (self.output.strip().splitlines() or ["(no output)"])[-1]

    def load_error(self) -> str | None:
        """The child's one-line HarnessError (exit 2: the harness could not be loaded or has no such
        variant), without its ``fuzzfarm: `` prefix; None when the harness ran."""
        if self.rc != 2 or self.result is not None:
            return None
        lines = self.output.splitlines()
        msg = next((ln for ln in reversed(lines) if ln.startswith("fuzzfarm:")), lines[-1] if lines else "")
        return msg.removeprefix("fuzzfarm: ")


def run_child(module: str, target, variant: str, data: bytes, request: dict | None = None, *,
              timeout: float, memory_limit_mb: int | None = None, env: dict | None = None,
              timed_from_load: bool = False, load_timeout: float = 300.0, keep: Sequence[str] = (),
              workdir: str | None = None) -> ChildRun:
    """Run ``python -m MODULE`` (whose main is :func:`child_main`) on ``data`` for harness
    ``target`` (an ``fuzzfarm.harness.target.Target``) / ``variant`` with ``request`` (JSON-able options)
    in a fresh temp dir under ``workdir``, in ``target.child_env(env)``, bounded by ``timeout``
    seconds (from the harness's import with ``timed_from_load``) and ``memory_limit_mb``."""
    wire = {"harness": target.name, "module": target.module, "variant": variant,
            "data": base64.b64encode(data).decode(), **(request or {})}
    with tempfile.TemporaryDirectory(prefix="fuzzfarm-child-", dir=workdir) as tmp:
        with open(os.path.join(tmp, REQUEST), "w") as f:
            json.dump(wire, f)
        argv = [sys.executable, "-m", module, f"--request={REQUEST}"]
        rc, out = run_bounded(argv, env=target.child_env(env), cwd=tmp, timeout=timeout,
                              memory_limit_mb=memory_limit_mb, start_marker=LOADED if timed_from_load else None,
                              start_timeout=load_timeout)
        result, files = None, {}
        try:
            with open(os.path.join(tmp, RESULT)) as f:
                result = json.load(f)
        except (OSError, ValueError):
            pass
        for name in keep:
            if os.path.exists(os.path.join(tmp, name)):
                with open(os.path.join(tmp, name), "rb") as f:
                    files[name] = f.read()
    return ChildRun(rc, result, out, files)


def child_main(run: Callable[[object, str, bytes, dict], dict], argv: Sequence[str] | None = None) -> int:
    """The child's side of :func:`run_child`: read the request, load the harness uninstrumented,
    check the variant, print ``LOADED``, write ``run(module, variant, data, request)`` as the
    result. A harness that cannot be loaded: ``fuzzfarm: ...`` on stderr, exit 2."""
    argv = sys.argv[1:] if argv is None else argv
    path = next(a.split("=", 1)[1] for a in argv if a.startswith("--request="))
    with open(path) as f:
        req = json.load(f)
    from fuzzfarm import harness as H
    from fuzzfarm.instrument import disable
    disable()  # only a libFuzzer process needs coverage (fuzzfarm/instrument.py)
    try:
        mod = H.Target(req["harness"], req["module"]).load()
        H.check_variant(mod, req["variant"])
    except H.HarnessError as e:
        sys.stderr.write(f"fuzzfarm: {e}\n")
        return 2
    sys.stdout.write(LOADED + "\n")
    sys.stdout.flush()
    res = run(mod, req["variant"], base64.b64decode(req["data"]), req)
    tmp = os.path.join(os.path.dirname(path), RESULT + ".tmp")
    with open(tmp, "w") as f:
        json.dump(res, f)
    os.replace(tmp, os.path.join(os.path.dirname(path), RESULT))
    return 0
