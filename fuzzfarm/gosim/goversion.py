"""The Go version a run models (``gosim.run(go_version=...)``): what changes with it.

Go 1.23 changed timer channels (go.dev/doc/go1.23#timer-changes, runtime/time.go): a
``NewTimer``/``NewTicker``/``After`` channel presents as unbuffered (``len`` and ``cap`` are 0),
and ``Stop``/``Reset`` drain a value the timer sent but nobody received, reporting it as still
pending (``Stop`` returns true), so no stale value is received afterwards. Go 1.22 and earlier
(and Go 1.23-1.26 built from a go.mod whose ``go`` line is below 1.23, or run with
``GODEBUG=asynctimerchan=1``; Go 1.27 removed that setting) keep the value in a 1-buffered
channel. The default is the Go the project is checked against (``DEFAULT``).
"""

from __future__ import annotations

import functools
import re

DEFAULT = "1.27"
SYNC_TIMERS = (1, 23)  # the first Go whose timer channels are synchronous
OLD_TIMERS = "Go <= 1.22 timers (go.mod go line < 1.23, or GODEBUG=asynctimerchan=1 on Go 1.23-1.26)"

_VERSION = re.compile(r"^(?:go)?1\.(\d+)(?:\.\d+|rc\d+)?$")
_GO_LINE = re.compile(r"^go\s+(\S+)\s*(?://.*)?$")


def parse(v: str) -> tuple[int, int]:
    """``"1.22"``, ``"go1.22"``, ``"1.22.10"`` -> (1, 22). ValueError (saying what was given and
    what to write) for anything else."""
    m = _VERSION.match(v.strip()) if isinstance(v, str) else None
    if m is None:
        raise ValueError(f"go_version={v!r}: write a Go release such as '1.22' or '1.27' (a go.mod 'go' line)")
    return (1, int(m.group(1)))


def of_go_mod(path: str) -> str:
    """The ``go`` line of the go.mod file at ``path`` (``"1.22"``). OSError when it cannot be
    read; ValueError when it has no valid ``go`` line."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = _GO_LINE.match(line.strip())
            if m:
                parse(m.group(1))
                return m.group(1)
    raise ValueError(f"{path}: no 'go' line (a go.mod says e.g. 'go 1.22')")


@functools.lru_cache(maxsize=64)  # once per run: keep it off the run's start-up cost
def sync_timers(v: str) -> bool:
    """True when Go ``v``'s timer channels are synchronous (1.23 and later)."""
    return parse(v) >= SYNC_TIMERS
