"""Every function of the example cases (fuzzfarm/examples) says which Go function it stands for.

A function is accounted for when it is declared with ``gosim.go_func`` (its code is in the
gonames registry, so its frames read in Go's terms) or marked ``gosim.not_ported`` with a reason
(scaffolding: a scenario driver, a test double). Lambdas and comprehensions are exempt: they
cannot be decorated and read as part of the function around them.

Nested functions (a scenario's goroutines, closures such as ``renew.func1.1``) only exist once
their outer function runs, so the check reads each one's decorators from the source and
evaluates them against the module (the real ``go_func``/``not_ported``, with arguments those
accept); the functions that exist at import are also checked in the live registry.
"""

from __future__ import annotations

import ast
import inspect
import types

import pytest

from fuzzfarm import examples
from fuzzfarm.gosim import gonames

MODULES = [examples] + examples.all_cases()
EXEMPT = {"<lambda>", "<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>"}


def _nested_codes(code):
    """``code`` and every function code object compiled inside it (class bodies walked, not kept)."""
    out = []
    if code.co_name not in EXEMPT and code.co_flags & inspect.CO_OPTIMIZED:
        out.append(code)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            out.extend(_nested_codes(const))
    return out


def _source_codes(mod):
    """Every function code object of ``mod``'s source, compiled afresh, keyed (qualname, first line)."""
    with open(mod.__file__, encoding="utf-8") as f:
        top = compile(f.read(), mod.__file__, "exec")
    return {(c.co_qualname, c.co_firstlineno): c for const in top.co_consts
            if isinstance(const, types.CodeType) for c in _nested_codes(const)}


def _live_functions(mod):
    """The module's functions and its classes' methods, as the import left them."""
    seen = []
    for obj in vars(mod).values():
        if isinstance(obj, types.FunctionType) and obj.__module__ == mod.__name__:
            seen.append(obj)
        elif isinstance(obj, type) and obj.__module__ == mod.__name__:
            for attr in vars(obj).values():
                if isinstance(attr, (staticmethod, classmethod)):
                    attr = attr.__func__
                if isinstance(attr, property):
                    seen.extend(f for f in (attr.fget, attr.fset, attr.fdel) if f is not None)
                elif isinstance(attr, types.FunctionType):
                    seen.append(attr)
    return seen


def _live_codes(mod):
    """Every function code object reachable from the live module, nested ones via co_consts."""
    out = {}
    for fn in _live_functions(mod):
        for c in _nested_codes(fn.__code__):
            out[(c.co_qualname, c.co_firstlineno)] = c
    return out


def _defs(mod):
    """The module's def statements, keyed as code objects are: (name, line of the first decorator)."""
    with open(mod.__file__, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            out[(node.name, first)] = node
    return out


def _declaration(mod, node):
    """``("go_func", args)`` or ``("not_ported", args)`` from ``node``'s decorators, each checked by
    calling the real decorator factory with them; None when it has neither."""
    found = None
    for dec in node.decorator_list:
        if not isinstance(dec, ast.Call):
            continue
        # what the decorator's name means in the module (our own source, so eval is safe)
        factory = eval(compile(ast.Expression(dec.func), mod.__file__, "eval"), vars(mod))  # noqa: S307
        if factory is gonames.go_func or factory is gonames.not_ported:
            args = [ast.literal_eval(a) for a in dec.args]
            factory(*args)  # raises for a site without file.go:line, or an empty reason
            assert found is None, f"{mod.__name__}:{node.lineno} {node.name} is declared twice"
            found = ("go_func" if factory is gonames.go_func else "not_ported", args)
    return found


@pytest.mark.parametrize("mod", MODULES, ids=[m.__name__.rsplit(".", 1)[-1] for m in MODULES])
def test_every_example_function_is_accounted_for(mod):
    source = _source_codes(mod)
    live = _live_codes(mod)
    # the walk from the live module reaches every function its source defines
    assert set(source) == set(live), f"functions not reachable from the module: {sorted(set(source) ^ set(live))}"
    defs = _defs(mod)
    existing = {}
    for fn in _live_functions(mod):
        existing.setdefault(fn.__code__, []).append(fn)
    missing = []
    for (qualname, first), code in sorted(live.items(), key=lambda kv: kv[0][1]):
        node = defs[(code.co_name, first)]
        decl = _declaration(mod, node)
        if decl is None:
            missing.append(f"{qualname} (line {node.lineno})")
            continue
        # functions that exist now must carry the declaration for real: registered, or marked
        for fn in existing.get(code, ()):
            if decl[0] == "go_func":
                assert gonames.go_site(code, first) is not None, f"{qualname}: go_func but not in the gonames registry"
                assert (fn.__go__.name, f"{fn.__go__.file}:{fn.__go__.line}") == tuple(decl[1])
            else:
                assert getattr(fn, "__not_ported__", None) == decl[1][0], f"{qualname}: not_ported but unmarked"
    assert not missing, f"{mod.__name__}: functions with neither go_func nor not_ported: {missing}"


@pytest.mark.parametrize("mod", MODULES, ids=[m.__name__.rsplit(".", 1)[-1] for m in MODULES])
def test_go_line_comments_sit_in_go_func_functions(mod):
    """A ``# :N`` comment cites a Go line only in a go_func function's frame; anywhere else it
    would be ignored, so it must not be there."""
    with open(mod.__file__, encoding="utf-8") as f:
        lines = f.read().splitlines()
    defs = _defs(mod)
    spans = sorted(((n.lineno, n.end_lineno, n) for n in defs.values()), key=lambda s: s[1] - s[0])
    stray = []
    for i, text in enumerate(lines, 1):
        if not gonames._GO_LINE.search(text):  # the pattern go_site reads
            continue
        inner = next((n for lo, hi, n in spans if lo <= i <= hi), None)
        if inner is None or (_declaration(mod, inner) or ("",))[0] != "go_func":
            stray.append(f"line {i}: {text.strip()}")
    assert not stray, f"{mod.__name__}: '# :N' outside a go_func function: {stray}"


def test_nested_declarations_register_when_their_outer_function_runs():
    """The source check above stands for the registry for nested functions: running a scenario
    creates them and the decorator registers each one (here the DR-01 renew goroutine)."""
    from fuzzfarm import gosim
    from fuzzfarm.examples import dr01_leader_observed_record as dr01
    from fuzzfarm.strategies import RandomStrategy

    poll = next(c for c in _live_codes(dr01).values() if c.co_name == "poll")
    gosim.run(dr01.fixed, strategy=RandomStrategy(1), **dr01.RUN_KW)
    assert gonames.go_site(poll, poll.co_firstlineno) == ("LeaderElector.renew.func1.1", "leaderelection.go:266")
