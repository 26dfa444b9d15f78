"""Every function of a port says which Go function it stands for, or that none does.

A frame of a port reads in Go's terms (``objectChecker.Stop (wait_for_controlled_pods.go:713)``)
only when its function is declared with ``gosim.go_func``; a function with no Go function behind
it (a test double, a scenario writer, a stand-in for a Go expression) says so with
``gosim.not_ported(reason)``. These tests walk every function and method code object of every
module under :data:`PACKAGES` (nested functions too; lambdas and comprehensions are exempt)
and fail with the list of those that are neither.

How each code object is accounted for:

* a function reachable from its module (module-level, or a method of a class, through
  ``property``/``classmethod``/``staticmethod``) is checked at run time: ``gonames.go_site``
  must know its code object (the lookup frames use), or it carries ``__not_ported__``;
* a nested function only exists while its enclosing function runs, so its decorators run then:
  its ``def`` is found in the module's syntax tree and each decorator expression is evaluated in
  the module's namespace; it counts when one of them is ``go_func(...)`` or ``not_ported(...)``
  (evaluating the call also checks its arguments).

To cover more code (``fuzzfarm.examples``), add the package to :data:`PACKAGES` and, for the
site check, its doc to :data:`SITE_DOCS`.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import pkgutil
import re
import sys
import types

import pytest

from fuzzfarm.gosim import gonames

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PACKAGES = ["fuzzfarm.ports"]

# The doc whose "Go sites" section lists every Go file a package's declarations cite.
SITE_DOCS = {
    "fuzzfarm.ports.clusterloader2": "docs/ports/clusterloader2.md",
    "fuzzfarm.ports.controller_runtime": "docs/ports/prow.md",
    "fuzzfarm.ports.prow": "docs/ports/prow.md",
}

_FUNCTION = inspect.CO_OPTIMIZED | inspect.CO_NEWLOCALS  # a function body, not a module or class body


def modules(package: str) -> list[types.ModuleType]:
    """The package and every module under it, imported."""
    pkg = importlib.import_module(package)
    out = [pkg]
    for info in pkgutil.walk_packages(pkg.__path__, package + "."):
        out.append(importlib.import_module(info.name))
    return out


def _function_codes(code: types.CodeType):
    """Every function code object inside ``code`` (recursively), lambdas and comprehensions
    excepted (their names are ``<lambda>``, ``<listcomp>``, ``<genexpr>``, ...)."""
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_flags & _FUNCTION == _FUNCTION and not const.co_name.startswith("<"):
                yield const
            yield from _function_codes(const)


def _unwrap(obj) -> list:
    if isinstance(obj, (staticmethod, classmethod)):
        return [obj.__func__]
    if isinstance(obj, property):
        return [f for f in (obj.fget, obj.fset, obj.fdel) if f is not None]
    if isinstance(obj, types.FunctionType):
        return [obj]
    return []


def _live_functions(module: types.ModuleType) -> dict:
    """``(qualname, first line) -> function`` for every function of ``module`` reachable from
    its namespace: module-level functions and the methods of its classes (nested classes too)."""
    out: dict = {}
    path = os.path.abspath(module.__file__)

    def add(fn):
        code = fn.__code__
        if os.path.abspath(code.co_filename) == path:
            out[(code.co_qualname, code.co_firstlineno)] = fn

    def walk_class(cls, seen):
        if cls in seen or cls.__module__ != module.__name__:
            return
        seen.add(cls)
        for obj in vars(cls).values():
            if isinstance(obj, type):
                walk_class(obj, seen)
            for fn in _unwrap(obj):
                add(fn)

    seen: set = set()
    for obj in vars(module).values():
        if isinstance(obj, type):
            walk_class(obj, seen)
        for fn in _unwrap(obj):
            add(fn)
    return out


def _defs(tree: ast.AST) -> dict:
    """``(name, first line) -> FunctionDef``; the first line is that of the first decorator,
    as in ``co_firstlineno``."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            out[(node.name, first)] = node
    return out


def _probe():
    """A function to apply a nested function's decorator to (so its declaration can be read)."""


def _declaration_of_nested(node, module: types.ModuleType):
    """The ``GoFunc`` or not-ported reason the decorators of nested ``def`` ``node`` give it."""
    for dec in node.decorator_list:
        if not isinstance(dec, ast.Call):
            continue
        func = eval(compile(ast.Expression(dec.func), module.__file__, "eval"), vars(module))
        if func is gonames.go_func or func is gonames.not_ported:
            deco = eval(compile(ast.Expression(dec), module.__file__, "eval"), vars(module))
            probe = deco(types.FunctionType(_probe.__code__, {}))
            return getattr(probe, "__go__", None) or getattr(probe, "__not_ported__", None)
    return None


def declarations(module: types.ModuleType) -> list[tuple[str, int, object]]:
    """``(qualname, first line, declaration)`` for every function of ``module``; the
    declaration is a ``GoFunc``, a not-ported reason (str), or None (undeclared)."""
    path = module.__file__
    with open(path, encoding="utf-8") as fh:
        source = fh.read()
    live = _live_functions(module)
    defs = _defs(ast.parse(source))
    out = []
    for code in _function_codes(compile(source, path, "exec", dont_inherit=True)):
        key = (code.co_qualname, code.co_firstlineno)
        fn = live.get(key)
        if fn is not None:
            decl = getattr(fn, "__not_ported__", None)
            go = gonames.go_site(fn.__code__, fn.__code__.co_firstlineno)
            if go is not None:
                decl = gonames.declared(fn)
                assert decl is not None and decl.name == go[0], (key, go)
        else:  # nested (or otherwise not reachable): its decorators run only with its enclosing function
            decl = _declaration_of_nested(defs[(code.co_name, code.co_firstlineno)], module)
        out.append((code.co_qualname, code.co_firstlineno, decl))
    return out


def _rel(module) -> str:
    return os.path.relpath(module.__file__, ROOT)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_port_function_is_declared_or_not_ported(package):
    missing = []
    count = 0
    for module in modules(package):
        for qualname, line, decl in declarations(module):
            count += 1
            if decl is None:
                missing.append(f"{_rel(module)}:{line} {qualname.replace('<locals>.', '')}")
    assert count > 0, f"no functions found under {package}"
    assert not missing, (
        f"{len(missing)} function(s) under {package} declare neither the Go function they stand for "
        f"(@go_func(\"pkg.Func\", \"file.go:line\")) nor that none does (@not_ported(\"what it is\")):\n  "
        + "\n  ".join(missing))


def _go_sites_section(doc: str) -> str:
    with open(os.path.join(ROOT, doc), encoding="utf-8") as fh:
        text = fh.read()
    m = re.search(r"^## Go sites\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert m, f"{doc} has no '## Go sites' section listing the Go files its ports cite"
    return m.group(1)


@pytest.mark.parametrize("package", sorted(SITE_DOCS))
def test_declared_go_files_are_listed_in_the_ports_doc(package):
    """Each ``file.go`` a declaration cites is named in the doc's "Go sites" section, which says
    which repository, version and path it is (a line is only checkable against a known file)."""
    section = _go_sites_section(SITE_DOCS[package])
    listed = set(re.findall(r"`(?:[\w./-]*/)?([\w.-]+\.go)`", section))
    unlisted = []
    for module in modules(package):
        for qualname, line, decl in declarations(module):
            if isinstance(decl, gonames.GoFunc) and decl.file not in listed:
                unlisted.append(f"{_rel(module)}:{line} {qualname} cites {decl.file}")
    assert not unlisted, f"Go files not listed in {SITE_DOCS[package]} '## Go sites':\n  " + "\n  ".join(unlisted)


def test_coverage_check_sees_nested_and_method_functions():
    """The walk reaches what it must: a nested function (``start``'s informer handler), a
    property getter and a classmethod, each with the declaration its decorator gives."""
    from fuzzfarm.ports.clusterloader2 import objects, wait_for_controlled_pods
    from fuzzfarm.ports.controller_runtime import client

    got = {q: d for q, _, d in declarations(wait_for_controlled_pods)}
    handler = got["WaitForControlledPods.start.<locals>.handler"]
    assert isinstance(handler, gonames.GoFunc) and handler.name.endswith(".start.func1")
    got = {q: d for q, _, d in declarations(objects)}
    assert got["RuntimeObject.key"].name == "cache.MetaNamespaceKeyFunc"
    got = {q: d for q, _, d in declarations(client)}
    assert isinstance(got["Pointer.to_field"], str)


def test_walk_flags_undeclared_code_and_exempts_lambdas(tmp_path, monkeypatch):
    """On a module built to be half declared: the walk reports exactly the undeclared method,
    property and nested function, and skips the lambda, the comprehension and the class body."""
    (tmp_path / "gonames_probe_mod.py").write_text(
        "from fuzzfarm.gosim import go_func, not_ported\n"
        "\n"
        "@go_func('pkg.Outer', 'x.go:1')\n"
        "def outer():\n"
        "    @not_ported('a test double')\n"
        "    def declared_inner():\n"
        "        return [i for i in range(2)]\n"
        "    def bare_inner():\n"
        "        return lambda: 1\n"
        "    return declared_inner, bare_inner\n"
        "\n"
        "class C:\n"
        "    x = [j for j in range(2)]\n"
        "    def method(self):\n"
        "        pass\n"
        "    @property\n"
        "    def prop(self):\n"
        "        return 1\n"
        "    @classmethod\n"
        "    @go_func('C.Make', 'x.go:9')\n"
        "    def make(cls):\n"
        "        return cls()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        module = importlib.import_module("gonames_probe_mod")
        got = {q: d for q, _, d in declarations(module)}
    finally:
        sys.modules.pop("gonames_probe_mod", None)
    assert sorted(got) == ["C.make", "C.method", "C.prop", "outer", "outer.<locals>.bare_inner",
                           "outer.<locals>.declared_inner"]
    assert sorted(q for q, d in got.items() if d is None) == ["C.method", "C.prop", "outer.<locals>.bare_inner"]
    assert got["outer"].name == "pkg.Outer" and got["C.make"].name == "C.Make"
    assert got["outer.<locals>.declared_inner"] == "a test double"
