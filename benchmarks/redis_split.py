"""Whose Redis commands: fuzzfarm's own (keys under ``fuzzfarm:``: jobs' stats ticks, leases,
corpus, the janitor's sweeps, the collector's records) or Celery's and kombu's (queue BRPOPs,
the pidbox and event channels, the unacked-restore sweep, binding bookkeeping).

``INFO commandstats`` counts commands by name only, so a window of the campaign is also watched
with ``redis-cli MONITOR`` and every command is put in one class:

* by key: a command naming a ``fuzzfarm:`` key (for EVAL/EVALSHA: any of its keys) is
  fuzzfarm's, any other keyed command (or PUBLISH channel) Celery's;
* a command run inside a script (MONITOR's ``lua`` lines) goes with the script that ran it;
* keyless commands (PING, HELLO, MULTI, EXEC, TIME, SCRIPT, CLIENT ...) go with their
  connection: the class of the keyed commands that connection sent in the window; a connection
  that sent none is ``unattributed`` (reported, never guessed).

MONITOR's own cost falls on redis-server's CPU, not on the command counts.
"""

from __future__ import annotations

import collections
import os
import re
import shlex
import shutil
import subprocess
import tempfile

OURS = "fuzzfarm"
CELERY = "celery/kombu"
UNKNOWN = "unattributed"
_LINE = re.compile(r'^\d+\.\d+ \[\d+ ([^\]]+)\] (.*)$')
_KEYLESS = {"PING", "HELLO", "MULTI", "EXEC", "DISCARD", "TIME", "SCRIPT", "CLIENT", "SELECT", "AUTH",
            "INFO", "ECHO", "READONLY", "RESET", "QUIT", "COMMAND"}
_OWN = {"INFO", "MONITOR"}  # the benchmark's snapshots


class Monitor:
    """``redis-cli -p PORT monitor`` into a file, from :meth:`start` to :meth:`stop`."""

    def __init__(self, port: int):
        self.port = port
        self.path = None
        self.proc = None

    def start(self) -> "Monitor":
        cli = shutil.which("redis-cli")
        if cli is None:
            return self
        fd, self.path = tempfile.mkstemp(prefix="fuzzfarm-bench-monitor-", suffix=".txt")
        with os.fdopen(fd, "wb") as out:
            self.proc = subprocess.Popen([cli, "-p", str(self.port), "monitor"], stdout=out,
                                         stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        return self

    def stop(self) -> list[str] | None:
        """The MONITOR lines seen (None: redis-cli is not installed)."""
        if self.proc is None:
            return None
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        with open(self.path, errors="replace") as f:
            lines = f.read().splitlines()
        os.unlink(self.path)
        return lines


def _keys(cmd: str, args: list[str]) -> list[str]:
    if cmd in ("EVALSHA", "EVAL"):
        try:
            return args[2:2 + int(args[1])]
        except (IndexError, ValueError):
            return []
    return args[1:2]


def classify(lines: list[str]) -> dict:
    """{class: calls} and {class: {command: calls}} of a MONITOR capture."""
    parsed = []  # (connection, command, class or None)
    for ln in lines:
        m = _LINE.match(ln)
        if not m:
            continue
        conn, rest = m.groups()
        try:
            args = shlex.split(rest)
        except ValueError:
            args = rest.split(" ")
        if not args:
            continue
        cmd = args[0].upper()
        if cmd in _OWN:
            continue
        cls = None
        if conn != "lua" and cmd not in _KEYLESS:
            keys = _keys(cmd, args)
            cls = OURS if any(k.startswith("fuzzfarm:") for k in keys) else CELERY
        parsed.append((conn, cmd, cls))
    by_conn: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for conn, _cmd, cls in parsed:
        if cls is not None and conn != "lua":
            by_conn[conn][cls] += 1
    calls: collections.Counter = collections.Counter()
    commands: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    script_cls = UNKNOWN
    for conn, cmd, cls in parsed:
        if conn == "lua":
            cls = script_cls
        elif cls is None:
            seen = by_conn.get(conn)
            cls = seen.most_common(1)[0][0] if seen else UNKNOWN
        if cmd in ("EVALSHA", "EVAL") and conn != "lua":
            script_cls = cls
        calls[cls] += 1
        commands[cls][cmd.lower()] += 1
    return {"calls": dict(calls), "commands": {k: dict(v.most_common()) for k, v in commands.items()}}
