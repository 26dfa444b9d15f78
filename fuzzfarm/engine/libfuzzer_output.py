"""Read libFuzzer's (atheris's) output: status lines, final stats, crash reports.

Status lines look like ``#4096  pulse  cov: 142 ft: 240 corp: 7/20b lim: 4 exec/s: 0 rss: 49Mb``;
``exec/s`` there is whole-second integer arithmetic (docs/TRAPS.md#g6), so callers compute
execs / elapsed themselves from ``#N``.
"""

from __future__ import annotations

import dataclasses
import os
import re

STATUS = re.compile(r"^#(\d+)\s+(INITED|NEW|REDUCE|pulse|DONE|RELOAD)\b(.*)$")
_FIELD = {name: re.compile(pat) for name, pat in (
    ("cov", r"\bcov: (\d+)"), ("ft", r"\bft: (\d+)"), ("corp", r"\bcorp: (\d+)/"),
    ("rss_mb", r"\brss: (\d+)Mb"))}
FINAL_EXECS = re.compile(r"^stat::number_of_executed_units:\s*(\d+)")
ARTIFACT_WRITTEN = re.compile(r"Test unit written to (\S+)")
BANNER = "INFO: Seed:"
NOT_INSTRUMENTED = "Is the code instrumented for coverage?"
ARTIFACT_PREFIXES = ("crash-", "timeout-", "oom-", "leak-")


@dataclasses.dataclass
class StatusLine:
    execs: int
    event: str
    cov: int | None = None
    ft: int | None = None
    corp: int | None = None
    rss_mb: int | None = None


def parse_status(line: str) -> StatusLine | None:
    """A ``#N EVENT cov: ... ft: ... corp: ...`` line, else None."""
    m = STATUS.match(line)
    if not m:
        return None
    st = StatusLine(int(m.group(1)), m.group(2))
    rest = m.group(3)
    for name, pat in _FIELD.items():
        f = pat.search(rest)
        if f:
            setattr(st, name, int(f.group(1)))
    return st


def parse_final_execs(line: str) -> int | None:
    m = FINAL_EXECS.match(line)
    return int(m.group(1)) if m else None


def artifact_kind(filename: str) -> str | None:
    """``crash`` / ``timeout`` / ``oom`` / ``leak`` from an artifact file name, else None."""
    base = os.path.basename(filename)
    for p in ARTIFACT_PREFIXES:
        if base.startswith(p):
            return p[:-1]
    return None


def artifact_written(line: str) -> str | None:
    """The path from ``... Test unit written to PATH``, else None."""
    m = ARTIFACT_WRITTEN.search(line)
    return m.group(1) if m else None


def crash_excerpt(lines: list[str], max_lines: int = 60) -> str:
    """The last crash report in ``lines``: from its start (`` === Uncaught Python exception``,
    `` === Timeout``, else the ``ERROR: libFuzzer`` line) on, at most ``max_lines`` lines."""
    err = next((i for i in range(len(lines) - 1, -1, -1) if "ERROR: libFuzzer" in lines[i]), None)
    if err is None:
        return "\n".join(lines[-max_lines:])
    start = err
    for i in range(err, max(-1, err - max_lines), -1):
        if lines[i].startswith(" === "):
            start = i
            break
    return "\n".join(lines[start:start + max_lines])


def last_error_line(lines: list[str]) -> str:
    """The most telling line of a failed start: the exception line of a traceback, else the
    last non-empty line."""
    text = [ln.strip() for ln in lines if ln.strip() and not ln.startswith("INFO: Instrumenting")]
    for ln in reversed(text):
        if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Exit)\b.*", ln) or ln.startswith(("fuzzfarm:", "ERROR:")):
            return ln
    return text[-1] if text else "(no output)"
