"""Whose Redis commands: fuzzfarm's own (keys under ``fuzzfarm:``: jobs' stats ticks, leases,
corpus, the janitor's sweeps, the collector's records) or Celery's and kombu's (queue BRPOPs,
the pidbox and event channels, the unacked-restore sweep, binding bookkeeping).

``INFO commandstats`` counts commands by name only, so a window of the campaign is also watched
with ``redis-cli MONITOR`` and every command is put in one class:

* by connection: fuzzfarm's store and kombu never share one, so a connection that named a
  ``fuzzfarm:`` key in the window (for EVAL/EVALSHA: any of its keys) is fuzzfarm's, with all
  its commands (also the rescue sweep's reads of kombu's queues and ``unacked`` hash, which are
  fuzzfarm's code); a connection that named only other keys (or PUBLISH channels) is Celery's;
* a command run inside a script (MONITOR's ``lua`` lines) goes with the script that ran it;
* a connection that sent only keyless commands (PING, HELLO ...: a connection opened and
  health-checked, then idle or closed) is ``unattributed`` (reported, never guessed).

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
            return args[3:3 + int(args[2])]  # EVALSHA sha numkeys key ...
        except (IndexError, ValueError):
            return []
    return args[1:2]


def classify(lines: list[str]) -> dict:
    """{class: calls} and {class: {command: calls}} of a MONITOR capture."""
    parsed = []  # (connection, command, keys or None)
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
        keys = _keys(cmd, args) if conn != "lua" and cmd not in _KEYLESS else None
        parsed.append((conn, cmd, keys))
    owner: dict[str, str] = {}
    for conn, _cmd, keys in parsed:
        if keys is None:
            continue
        if any(k.startswith("fuzzfarm:") for k in keys):
            owner[conn] = OURS
        else:
            owner.setdefault(conn, CELERY)
    calls: collections.Counter = collections.Counter()
    commands: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    script_cls = UNKNOWN
    for conn, cmd, _k in parsed:
        cls = script_cls if conn == "lua" else owner.get(conn, UNKNOWN)
        if cmd in ("EVALSHA", "EVAL") and conn != "lua":
            script_cls = cls
        calls[cls] += 1
        commands[cls][cmd.lower()] += 1
    return {"calls": dict(calls), "commands": {k: dict(v.most_common()) for k, v in commands.items()}}
