"""The Go citations of the ports a harness imports: every ``@go_func("pkg.Func", "file.go:N")``
declaration and every ``# :N`` site comment inside a declared function.

A harness's ports are the modules that importing the harness loads, found by importing it in a
fresh interpreter (``python -m fuzzfarm.portcheck.citations HARNESS``, JSON on stdout): that
is exact, also for modules a harness loads by name (the ``examples`` harness imports its cases
with ``importlib``), and leaves the caller's process untouched. Declarations are read from each
module's syntax tree, so nested functions count too (their decorators run only when the
enclosing function does); each decorator is evaluated in its module's namespace, as Python
does when it applies it.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import subprocess
import sys

from fuzzfarm.gosim import gonames


@dataclasses.dataclass(frozen=True)
class Citation:
    """A Go ``file``:``line`` that port function ``name`` cites: its declaration (``site`` is
    None) or a ``# :N`` comment on Python line ``py_line`` of it."""

    module: str
    py_file: str
    py_line: int
    qualname: str
    name: str
    file: str
    line: int
    site: bool = False

    def where(self) -> str:
        """The Python side: ``path/to/port.py:LINE``."""
        return f"{self.py_file}:{self.py_line}"


class CitationError(Exception):
    """The harness cannot be imported, or a declaration cannot be read. ``str`` says what to do."""


def _is_go_func(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "go_func") or (
        isinstance(node, ast.Attribute) and node.attr == "go_func")


def _nested_lines(fn: ast.AST) -> set[int]:
    """Lines of the functions and classes defined inside ``fn`` (their own frames, not ``fn``'s)."""
    out: set[int] = set()
    for node in ast.walk(fn):
        if node is not fn and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            out.update(range(first, node.end_lineno + 1))
    return out


def module_citations(module, root: str | None = None) -> list[Citation]:
    """Every citation in ``module`` (an imported module), in source order. ``root``: report the
    Python file relative to it. Raises CitationError for a declaration that does not evaluate."""
    path = module.__file__
    with open(path, encoding="utf-8") as fh:
        source = fh.read()
    if "go_func" not in source:
        return []
    lines = source.splitlines()
    rel = os.path.relpath(path, root) if root else path
    tree = ast.parse(source, path)
    out: list[Citation] = []
    qualnames: dict[ast.AST, str] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                q = f"{prefix}{child.name}"
                qualnames[child] = q
                visit(child, q + ("." if isinstance(child, ast.ClassDef) else ".<locals>."))
            else:
                visit(child, prefix)

    visit(tree, "")
    for node, qualname in qualnames.items():
        if isinstance(node, ast.ClassDef):
            continue
        for dec in node.decorator_list:
            if not (isinstance(dec, ast.Call) and _is_go_func(dec.func)):
                continue
            try:
                args = [eval(compile(ast.Expression(a), path, "eval"), vars(module)) for a in dec.args]  # noqa: S307
                decl = gonames.go_func(*args)(_probe_function()).__go__
            except Exception as e:  # noqa: BLE001 - a declaration that does not evaluate is the port's bug
                raise CitationError(f"{rel}:{dec.lineno}: cannot read the go_func declaration of {qualname}: "
                                    f"{type(e).__name__}: {e}") from None
            out.append(Citation(module.__name__, rel, dec.lineno, qualname, decl.name, decl.file, decl.line))
            skip = _nested_lines(node)
            for lineno in range(node.body[0].lineno, node.end_lineno + 1):
                if lineno in skip:
                    continue
                n = gonames.cited_line(lines[lineno - 1])
                if n is not None:
                    out.append(Citation(module.__name__, rel, lineno, qualname, decl.name, decl.file, n, site=True))
    out.sort(key=lambda c: (c.py_line, c.site))
    return out


def _probe_function():
    def probe():
        """Receives a declaration so that go_func's own checks run on it."""
    return probe


def harness_citations_here(harness: str, root: str | None = None) -> list[Citation]:
    """The citations of every module importing harness ``harness`` loads, in this process.
    Only meaningful in a fresh interpreter (:func:`harness_citations` runs it in one)."""
    from fuzzfarm import harness as H
    from fuzzfarm.instrument import disable

    disable()  # the ports' code is read, not run: no atheris instrumentation
    before = set(sys.modules)
    H.get(harness).load()
    mods = [m for name, m in sorted(sys.modules.items())
            if name not in before and not name.startswith("fuzzfarm.gosim")
            and str(getattr(m, "__file__", "") or "").endswith(".py")]
    out: list[Citation] = []
    for m in mods:
        out.extend(module_citations(m, root))
    return out


def harness_citations(harness: str, root: str | None = None) -> list[Citation]:
    """The citations of the ports harness ``harness`` imports, read in a fresh interpreter.
    Raises CitationError (one line) when the harness cannot be loaded there."""
    cmd = [sys.executable, "-m", "fuzzfarm.portcheck.citations", harness] + ([root] if root else [])
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        lines = (p.stderr or p.stdout).strip().splitlines()
        raise CitationError(lines[-1] if lines else f"reading the citations of {harness!r} failed (rc {p.returncode})")
    return [Citation(**c) for c in json.loads(p.stdout)]


def _main(argv: list[str]) -> int:
    from fuzzfarm.harness import HarnessError

    try:
        cites = harness_citations_here(argv[0], argv[1] if len(argv) > 1 else None)
    except (HarnessError, CitationError) as e:
        sys.stderr.write(f"{e}\n")
        return 2
    json.dump([dataclasses.asdict(c) for c in cites], sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
