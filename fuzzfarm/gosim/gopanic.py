"""Go's panic text for what Go panics on, from the Python exception a port raised.

A port runs Go code as Python, so a nil func call surfaces as ``TypeError: 'NoneType' object
is not callable``. Go says ``runtime error: invalid memory address or nil pointer dereference``.
The goroutine-panic detail is Go's text first, then the Python exception, then which
expression was nil when the failing instruction shows it (Python 3.11 keeps each instruction's
source columns).
"""

from __future__ import annotations

import linecache
import re
from types import TracebackType

from .projectcode import innermost_project_frame, sanitize

NIL_DEREF = "runtime error: invalid memory address or nil pointer dereference"
NIL_MAP_WRITE = "assignment to entry in nil map"
INDEX_OUT_OF_RANGE = "runtime error: index out of range"
DIVIDE_BY_ZERO = "runtime error: integer divide by zero"

# Python errors no Go program has: a name the port never defined (a translator's or a hand port's
# slip), an import that fails. The failure says it is the port's, not the Go's (and Go prints no
# line for it).
PORT_ERRORS = (NameError, ImportError, SyntaxError)
PORT_ERROR_NOTE = "a Python error of the port's own code, no Go panic: fix the port (or report the translator's bug)"

_RULES = (
    (TypeError, re.compile(r"^'NoneType' object is not callable"), NIL_DEREF),
    (TypeError, re.compile(r"^'NoneType' object does not support item assignment"), NIL_MAP_WRITE),
    (TypeError, re.compile(r"^'NoneType' object is not subscriptable"), NIL_DEREF),
    (AttributeError, re.compile(r"^'NoneType' object has no attribute"), NIL_DEREF),
    (IndexError, re.compile(r"index out of range"), INDEX_OUT_OF_RANGE),
    (ZeroDivisionError, re.compile(r""), DIVIDE_BY_ZERO),
)


def go_panic(cls: type, text: str) -> BaseException:
    """An exception of class ``cls`` for a panic gosim raises where Go's runtime or standard
    library panics with ``text`` (``makechan: size out of range``, ``sync/atomic: store of nil
    value into Value``): the crash reads ``panic: TEXT``, byte for byte Go's first line, while
    the exception class (what a bucket's signature keeps) stays ``cls``."""
    exc = cls(text)
    exc.go_panic = text
    return exc


def go_text(exc: BaseException) -> str | None:
    """Go's panic message for ``exc``, or None when Go would not panic this way (the panic is
    then the program's own, reported with the Python text)."""
    text = getattr(exc, "go_panic", None)
    if isinstance(text, str):
        return text
    msg = str(exc)
    for cls, pat, text in _RULES:
        if isinstance(exc, cls) and pat.search(msg):
            if text == INDEX_OUT_OF_RANGE:
                return _index_text(exc) or text
            return text
    return None


def _failing_source(tb: TracebackType | None):
    """(frame, source of the failing instruction, line) in the innermost project frame, or None."""
    last, pos = innermost_project_frame(tb)
    if pos is None:
        return None
    code = last.tb_frame.f_code
    line, end_line, col, end_col = pos
    if line is None or col is None or end_col is None or line != end_line:
        return None
    src = linecache.getline(code.co_filename, line)[col:end_col]
    return (last.tb_frame, src, line) if src else None


def _failing_expression(tb: TracebackType | None) -> str | None:
    """``expr at file.py:N``: the source of the failing instruction in the innermost project
    frame (the callee of a call, the object of an item assignment), or None."""
    got = _failing_source(tb)
    if got is None:
        return None
    frame, src, line = got
    expr = re.split(r"[(\[]", src, maxsplit=1)[0].strip()
    if not expr:
        return None
    return f"{expr} at {frame.f_code.co_filename.rsplit('/', 1)[-1]}:{line}"


_NO_VALUE = object()


def _plain_value(frame, node):
    """The value of a name or an int literal in ``frame`` (nothing else is evaluated: an
    attribute could be a gosim ``Shared`` field, whose read is a scheduling point)."""
    import ast
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _plain_value(frame, node.operand)
        return -v if type(v) is int else _NO_VALUE
    if isinstance(node, ast.Name):
        for scope in (frame.f_locals, frame.f_globals):
            if node.id in scope:
                return scope[node.id]
    return _NO_VALUE


def _index_text(exc: BaseException) -> str | None:
    """Go's ``index out of range [i] with length n`` when the failing subscript is
    ``name[name_or_int]`` on a list, tuple or str (Go prints the index and the length)."""
    got = _failing_source(exc.__traceback__)
    if got is None:
        return None
    frame, src, _ = got
    import ast  # here, not at the top: a fuzz child loads it only when a panic is rendered (docs/BENCHMARKS.md#startup)
    try:
        node = ast.parse(src.strip(), mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.Subscript):
        return None
    seq, i = _plain_value(frame, node.value), _plain_value(frame, node.slice)
    if not isinstance(seq, (list, tuple, str)) or type(i) is not int:
        return None
    if i < 0:  # Go's boundsError prints no length for a negative index
        return f"{INDEX_OUT_OF_RANGE} [{i}]"
    return f"{INDEX_OUT_OF_RANGE} [{i}] with length {len(seq)}"


def panic_detail(exc: BaseException) -> str:
    """The goroutine-panic detail: ``Go text (Python exception; nil: expr at file.py:N)``, or
    the Python exception alone when Go would not panic this way."""
    py = sanitize(f"{type(exc).__name__}: {exc}")
    text = go_text(exc)
    if text is None:
        return f"{py} ({PORT_ERROR_NOTE})" if isinstance(exc, PORT_ERRORS) else py
    if str(exc) == text:  # the exception says Go's text itself: its class is what it adds
        py = type(exc).__name__
    what = _failing_expression(exc.__traceback__) if text in (NIL_DEREF, NIL_MAP_WRITE) else None
    return f"{text} ({py}{'; nil: ' + what if what else ''})"
