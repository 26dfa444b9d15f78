"""Check citations against Go source: the file exists, the line lies inside the named function,
the name matches. One line per mismatch, ``file.go:LINE: what is wrong``."""

from __future__ import annotations

import dataclasses
import os

from .citations import Citation
from .gosource import GoFunction, GoSource

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
    tomllib = None

# gotwins/ beside the fuzzfarm package (a source checkout; an installed wheel has no twins)
TWINS_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                          "gotwins", "TWINS.toml")


@dataclasses.dataclass
class Outcome:
    """What one check found: ``mismatches`` (lines), how many citations were checked."""

    mismatches: list[str]
    declarations: int
    sites: int
    modules: int


def _line(c: Citation, text: str) -> str:
    return f"{c.file}:{c.line}: {text} [{c.qualname} at {c.where()}]"


def _inside(fns: list[GoFunction], line: int) -> str:
    """``; line N is in X`` for the innermost function of ``fns`` covering ``line``, or ''."""
    covering = [f for f in fns if f.covers(line)]
    if not covering:
        return ""
    inner = min(covering, key=lambda f: (f.last - f.first, len(f.name.split("."))))  # a literal that inherits its declaration's lines names the declaration
    return f"; line {line} is in {inner.name.split('.', 1)[1]} ({inner.span()})"


def check(citations: list[Citation], source: GoSource) -> Outcome:
    """Every citation against ``source``. A ``# :N`` site is checked against the function its
    declaration matched (skipped when the declaration itself did not match: one line for it)."""
    out: list[str] = []
    # a declaration may match more than one function: a twin's buggy and fixed builds each have
    # it, at their own lines (the port's buggy and fixed forms cite their own); a site is inside
    # when one of them covers it
    matched: dict[tuple[str, str], list[GoFunction] | None] = {}
    kind = "twin" if source.twin else "source tree"
    decls = sites = 0
    for c in citations:
        key = (c.py_file, c.qualname)
        if c.site:
            fns = matched.get(key)
            if fns is None:
                continue  # its declaration did not match: reported once, for the declaration
            sites += 1
            if not any(fn.covers(c.line) for fn in fns):
                spans = ", ".join(sorted({fn.span() for fn in fns}))
                out.append(_line(c, f"the '# :{c.line}' site is outside {c.name} ({spans})"))
            continue
        decls += 1
        matched[key] = None
        in_file = source.in_file(c.file)
        if not in_file:
            out.append(_line(c, f"no Go file {c.file} in the {kind} {source.root}"))
            continue
        named = [f for f in in_file if f.named(c.name)]
        hit = [f for f in named if f.covers(c.line)]
        if hit:
            matched[key] = sorted(hit, key=lambda f: f.last - f.first)
        elif named:
            spans = ", ".join(sorted({f.span() for f in named}))
            out.append(_line(c, f"line {c.line} is outside {c.name} ({spans}){_inside(in_file, c.line)}"))
        else:
            out.append(_line(c, f"no function {c.name} in {c.file}{_inside(in_file, c.line)}"))
    return Outcome(out, decls, sites, len({c.module for c in citations}))


def load_twins(path: str = TWINS_FILE) -> dict[str, dict[str, str]]:
    """``{harness: {port module or package: twin directory (absolute)}}`` from ``TWINS.toml``."""
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    base = os.path.dirname(os.path.abspath(path))
    return {h: {m: os.path.join(base, d) for m, d in table.items()} for h, table in data.items()}


def twin_of(module: str, table: dict[str, str]) -> str | None:
    """The twin directory of port ``module``: the entry for it or its longest listed package."""
    best = None
    for prefix in table:
        if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > len(best)):
            best = prefix
    return table[best] if best is not None else None
