"""Defer running a standard-library module a walk child imports but does not use before its
first schedule (start-up figures: docs/BENCHMARKS.md#startup).

``dataclasses`` imports ``inspect`` at its top, and ``inspect`` imports ``ast``, ``dis``,
``tokenize`` and ``linecache``: together the largest stdlib share of a walk child's imports. The
one use ``dataclasses`` makes of it is ``inspect.signature(cls)`` to write the docstring of a
dataclass that has none. :func:`defer` puts the module in ``sys.modules`` with only what the
import system sets (``__spec__``, ``__file__``, ...) and runs its code at the first access to
anything else, so whatever does use it gets the real module, fully run.

Not ``importlib.util.LazyLoader``: on Python 3.11 the ``import inspect`` statement itself reads
the module's ``__spec__`` through attribute access, which makes a LazyLoader module run at once.
"""

from __future__ import annotations

import importlib.util
import sys
import types


class _Deferred(types.ModuleType):
    # Called only for a name the module's dict lacks: everything but the import system's own.
    def __getattr__(self, attr: str):
        spec = self.__spec__
        self.__class__ = types.ModuleType
        spec.loader.exec_module(self)
        return getattr(self, attr)


def defer(name: str) -> None:
    """Import top-level module ``name`` deferred (nothing when it is already imported, not found,
    or not loaded from a file). Single-threaded use: the first access runs the module."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or not hasattr(spec.loader, "exec_module") or not spec.has_location:
        return
    module = importlib.util.module_from_spec(spec)
    module.__class__ = _Deferred
    sys.modules[name] = module
