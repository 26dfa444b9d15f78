"""``fuzzfarm check-port``: are a port's Go citations true of the Go source?

A port says which Go function each of its functions stands for, ``@go_func("pkg.Func",
"file.go:LINE")``, and which Go line a statement is, ``# :LINE``. Given Go source (a Go twin
from ``gotwins/``, or a checkout of the upstream code), every citation of the ports a harness
imports is checked: the file exists (by base name, or by a path suffix), the line lies inside
the named function, the name matches (``objectChecker.Stop``, ``pkg.Func``, ``Outer.func1``).

* :mod:`.citations` reads the citations (importing the harness in a fresh interpreter);
* :mod:`.gosource` reads the Go functions, with Go's own ``go/parser`` (``gofuncs.go``);
* :mod:`.check` compares them, one line per mismatch.

Why Go's own parser rather than tree-sitter-go: it is the parser the compiler uses, so it never
disagrees with Go on a file; ``go/build`` applies the build constraints that select a twin's
buggy or fixed files exactly as ``go build -tags`` does; and function literals are numbered as
Go's runtime names them (``func1``, ``func1.2``), which is how ports name goroutine bodies. Go is
already what the twins need (issue 28), so it adds no dependency; without Go, check-port says so
in one line (exit 2).
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
from typing import Callable

from fuzzfarm import gotool

from .check import TWINS_FILE, Outcome, check, load_twins, twin_of
from .citations import Citation, CitationError, harness_citations
from .gosource import GoSourceError, read_variants

__all__ = ["CheckPortError", "PortReport", "check_port"]


class CheckPortError(Exception):
    """Bad input: no such harness, directory or twin, Go missing, nothing to check. One line."""


@dataclasses.dataclass
class PortReport:
    """Every mismatch (``file.go:LINE: what``) and what was checked against what."""

    harness: str
    mismatches: list[str]
    checked: dict[str, Outcome]  # Go source directory -> its outcome
    untwinned: list[str]  # port modules with citations but no twin listed (twin mode only)

    def summary(self) -> str:
        decls = sum(o.declarations for o in self.checked.values())
        sites = sum(o.sites for o in self.checked.values())
        mods = sum(o.modules for o in self.checked.values())
        where = ", ".join(_show(d) for d in self.checked)
        text = (f"check-port {self.harness}: {decls + sites} citations checked ({decls} go_func declarations, "
                f"{sites} '# :N' sites) in {mods} modules against {where}")
        if self.mismatches:
            text += f": {len(self.mismatches)} mismatch(es)"
        else:
            text += ": all agree"
        if self.untwinned:
            text += f"; not checked (no twin in {_show(TWINS_FILE)}): {', '.join(self.untwinned)}"
        return text


def _show(path: str) -> str:
    rel = os.path.relpath(path)
    return rel if not rel.startswith("..") else path


def check_port(harness: str, go_src: str | None = None, module: str | None = None,
               twins_file: str = TWINS_FILE, progress: Callable[[str], None] | None = None) -> PortReport:
    """Check the citations of ``harness``'s ports against ``go_src`` (every port), or, without
    it, each port against its twin listed in ``twins_file``. ``module``: only the port modules
    under this dotted name. ``progress`` gets one line per Go source directory as its check
    starts (reading one lists its functions with Go, twice: seconds each). Raises
    CheckPortError for bad input."""
    if go_src is not None and not os.path.isdir(go_src):
        what = "is a file, not a directory" if os.path.exists(go_src) else "does not exist"
        raise CheckPortError(f"--go-src {go_src} {what}: pass a directory of Go source (a twin or a checkout)")
    try:
        cites = harness_citations(harness, os.getcwd())
    except CitationError as e:
        raise CheckPortError(str(e)) from None
    if module:
        cites = [c for c in cites if c.module == module or c.module.startswith(module + ".")]
    if not cites:
        raise CheckPortError(f"harness {harness!r} has no go_func citations" + (f" under {module}" if module else "")
                             + " to check")
    groups: dict[str, list[Citation]] = {}
    untwinned: list[str] = []
    if go_src is not None:
        groups[go_src] = cites
    else:
        table = _twins_of(harness, twins_file)
        for c in cites:
            d = twin_of(c.module, table)
            if d is None:
                if c.module not in untwinned:
                    untwinned.append(c.module)
                continue
            groups.setdefault(d, []).append(c)
        if not groups:
            raise CheckPortError(f"no twin of harness {harness!r}'s ports ({', '.join(untwinned)}) is listed in "
                                 f"{_show(twins_file)}; pass --go-src DIR")
    # What makes the input bad is said before the first progress line (one line for bad input):
    # Go missing, or a --go-src directory holding none of the cited files.
    try:
        gotool.require_go()
    except FileNotFoundError as e:
        raise CheckPortError(str(e)) from None
    if go_src is not None:
        _check_holds_cited_files(go_src, cites)
    mismatches: list[str] = []
    checked: dict[str, Outcome] = {}
    for i, (d, group) in enumerate(groups.items(), 1):
        if progress is not None:
            mods = len({c.module for c in group})
            progress(f"check-port {harness}: {_show(d)} ({i}/{len(groups)}): {len(group)} citations "
                     f"of {mods} module(s)")
        try:
            source = read_variants(d)
        except GoSourceError as e:
            raise CheckPortError(str(e)) from None
        if go_src is not None:
            files = sorted({c.file for c in group if not c.site})
            if files and not any(source.in_file(f) for f in files):
                # none of the cited files is there: the wrong directory, not a wrong port
                shown = ", ".join(files[:4]) + (", ..." if len(files) > 4 else "")
                raise CheckPortError(f"none of the Go files the port cites ({shown}) is under {go_src}: "
                                     f"pass the twin or the upstream checkout the port was written from")
        outcome = check(group, source)
        checked[d] = outcome
        mismatches.extend(outcome.mismatches)
    return PortReport(harness, mismatches, checked, untwinned)


def _check_holds_cited_files(go_src: str, cites: list[Citation]) -> None:
    """CheckPortError when no .go file under ``go_src`` is one the port cites (by base name, or
    by path suffix for a citation with directories): the wrong directory, not a wrong port."""
    files = sorted({c.file for c in cites if not c.site})
    if not files:
        return
    here = [os.path.relpath(os.path.join(r, n), go_src).replace(os.sep, "/")
            for r, _, names in os.walk(go_src) for n in names if n.endswith(".go")]
    bases = {posixpath.basename(p) for p in here}
    if not any((f in bases) if "/" not in f else any(p == f or p.endswith("/" + f) for p in here) for f in files):
        shown = ", ".join(files[:4]) + (", ..." if len(files) > 4 else "")
        raise CheckPortError(f"none of the Go files the port cites ({shown}) is under {go_src}: "
                             f"pass the twin or the upstream checkout the port was written from")


def _twins_of(harness: str, twins_file: str) -> dict[str, str]:
    if not os.path.isfile(twins_file):
        raise CheckPortError(f"no Go twins here ({_show(twins_file)} is missing: fuzzfarm runs from a checkout with "
                             f"gotwins/); pass --go-src DIR")
    try:
        twins = load_twins(twins_file)
    except (OSError, ValueError) as e:
        raise CheckPortError(f"cannot read {_show(twins_file)}: {e}") from None
    if harness not in twins:
        raise CheckPortError(f"no twin of harness {harness!r} is listed in {_show(twins_file)} "
                             f"(listed: {', '.join(sorted(twins)) or 'none'}); pass --go-src DIR")
    return twins[harness]
