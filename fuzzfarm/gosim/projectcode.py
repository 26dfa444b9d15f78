"""Which source files are project code (ports, harnesses, scenarios, tests) and which are
machinery, and message text made the same in every process. Below failures.py, gopanic.py and
trace.py, which all ask it."""

from __future__ import annotations

import functools
import os
import re
import sysconfig

_HERE = os.path.dirname(os.path.abspath(__file__))
_PKG = os.path.dirname(_HERE)
# Frames from these trees are machinery, never "where the bug is".
_MACHINERY = tuple(
    os.path.join(_PKG, sub) + os.sep
    for sub in ("gosim", "strategies", "engine", "farm", "collector")
) + (
    # the harness package's machinery (the contract and registry, the replay, the child runner,
    # Target); its declaration and scenario reader stay the harness author's side
    *(os.path.join(_PKG, "harness", f) for f in ("__init__.py", "contract.py", "knobs.py", "registration.py",
                                                 "runone.py", "child.py", "target.py")),
    # what `fuzzfarm port`'s generated code calls (defer, builtins, the testing.T model): a frame
    # of it is the translation's plumbing, never a Go function (a deferred call's frame below
    # Defers.__exit__ is the Go caller's)
    os.path.join(_PKG, "goport", "rt.py"),
    os.path.join(_PKG, "goport", "rtptr.py"),  # rt's pointers and sync/atomic functions
)
_STDLIB = tuple(
    p + os.sep
    for p in {sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]}
)
_SITE = tuple(p + os.sep for p in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})


@functools.lru_cache(maxsize=4096)
def is_project_file(filename: str) -> bool:
    """True when ``filename`` holds project code (ports, harnesses, scenarios, tests).

    Runtime internals, strategies, farm machinery, the standard library and third-party
    packages are excluded, wherever the package is installed (editable or not).
    """
    path = os.path.abspath(filename)
    if path.startswith(_MACHINERY) or filename.startswith("<"):
        return False
    if path.startswith(_SITE):
        rest = path[len(next(p for p in _SITE if path.startswith(p))):]
        return rest.startswith(("fuzzfarm" + os.sep + "ports", "harnesses" + os.sep))
    if path.startswith(_STDLIB):
        return False
    return True


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def sanitize(text: str) -> str:
    """``text`` with memory addresses (``<Foo object at 0x7f..>``) removed, so that messages and
    trace details are the same in every process."""
    return _ADDRESS.sub("", text) if " at 0x" in text else text


def innermost_project_frame(tb):
    """The innermost entry of traceback ``tb`` in project code and its failing instruction's
    ``(line, end line, column, end column)`` (None where Python records none); ``(None, None)``
    when no project frame is on it."""
    last = None
    while tb is not None:
        if is_project_file(tb.tb_frame.f_code.co_filename):
            last = tb
        tb = tb.tb_next
    if last is None:
        return None, None
    try:
        return last, list(last.tb_frame.f_code.co_positions())[last.tb_lasti // 2]
    except (IndexError, ValueError):
        return last, None
