"""Go names for ported code: the upstream function and ``file.go:line`` a port stands for.

One mechanism for every port: decorate the Python function with the Go function it ports,

    @go_func("objectChecker.Stop", "wait_for_controlled_pods.go:710")
    def stop(self): ...

and, on a line that is a Go statement worth citing, end it with a ``# :713`` comment (the Go
line in that same file). A frame of a decorated function then reads as Go in dumps, traces and
crash states (``objectChecker.Stop (wait_for_controlled_pods.go:713)``), with the Python site
beside it. A line without a ``# :N`` comment cites the Go function's own line. Signatures stay on
the Python names, so they do not change when a port gains or changes a declaration.

A function of a port that no upstream Go function stands behind (a scenario driver, a test
double, a helper that only unpacks the harness's inputs) says so instead, with its reason:

    @not_ported("scenario driver: the Go test's body")
    def main(): ...

so that every function of a port is accounted for, one way or the other
(``tests/ports/test_go_names_coverage.py``).

Lookups are keyed by code object, so they survive atheris instrumentation (the decorator sees
the instrumented code, and so do the frames).
"""

from __future__ import annotations

import dataclasses
import functools
import linecache
import re
from typing import Callable

_GO_LINE = re.compile(r"#\s*:([0-9]{1,7})\b")  # ASCII digits, a plausible line (not "²", not 10**20)
_DECIMAL = re.compile(r"[0-9]{1,7}")


@dataclasses.dataclass(frozen=True)
class GoFunc:
    """``name`` (``pkg.Func`` / ``recv.Method``), ``file`` (``x.go``) and the line of its ``func``."""

    name: str
    file: str
    line: int


_BY_CODE: dict = {}


def go_func(name: str, site: str) -> Callable:
    """Declare that the decorated function ports Go function ``name``, declared at ``site``
    (``file.go:line``). Raises ValueError for a site without a line."""
    # checked here, at import: a bad declaration would otherwise surface as a failure of every
    # run (a name that is not text breaks the crash dump) or as a wrong Go site in a report
    if not isinstance(name, str) or not name.strip() or any(c.isspace() for c in name):
        raise ValueError(f"go_func name must be a Go function name such as 'objectChecker.Stop', not {name!r}")
    file, sep, line = site.rpartition(":") if isinstance(site, str) else ("", "", "")
    if not sep or not file.endswith(".go") or ":" in file or not _DECIMAL.fullmatch(line) or int(line) < 1:
        raise ValueError(f"go_func site must be file.go:line (a line >= 1), not {site!r}")
    info = GoFunc(name, file, int(line))

    def deco(fn):
        code = getattr(fn, "__code__", None)
        if code is None:
            raise TypeError(f"go_func needs a plain function, got {fn!r}")
        if getattr(fn, "__go__", None) is not None or getattr(fn, "__not_ported__", None) is not None:
            raise ValueError(f"{fn.__qualname__} is declared twice (go_func / not_ported): keep one declaration")
        _BY_CODE[code] = info
        fn.__go__ = info
        return fn

    return deco


def not_ported(reason: str) -> Callable:
    """Declare that the decorated function is the port's own scaffolding, with no upstream Go
    function behind it; ``reason`` says what it is instead. Frames of it read in Python terms."""
    if not isinstance(reason, str) or not reason.strip():
        raise ValueError("not_ported needs a reason: what the function is, since no Go function stands behind it")

    def deco(fn):
        if getattr(fn, "__code__", None) is None:
            raise TypeError(f"not_ported needs a plain function, got {fn!r}")
        if getattr(fn, "__go__", None) is not None or getattr(fn, "__not_ported__", None) is not None:
            raise ValueError(f"{fn.__qualname__} is declared twice (go_func / not_ported): keep one declaration")
        fn.__not_ported__ = reason
        return fn

    return deco


def cited_line(text: str) -> int | None:
    """The Go line a ``# :N`` comment on source line ``text`` cites, or None."""
    m = _GO_LINE.search(text)
    return int(m.group(1)) if m else None


def declared(fn) -> GoFunc | None:
    """The declaration of ``fn`` (a decorated function), or None."""
    return getattr(fn, "__go__", None)


@functools.lru_cache(maxsize=8192)
def go_site(code, lineno: int) -> tuple[str, str] | None:
    """``(go name, "file.go:line")`` for a frame of ``code`` at Python line ``lineno``, or None
    when ``code`` is not a declared port function."""
    info = _BY_CODE.get(code)
    if info is None:
        return None
    line = cited_line(linecache.getline(code.co_filename, lineno))
    return info.name, f"{info.file}:{line if line is not None else info.line}"
