"""``instrument_imports()``: atheris's coverage instrumentation, with the patched code cached.

An atheris child spends most of its start-up rewriting bytecode: ``atheris.instrument_imports()``
patches every code object of the runtime and the port in pure Python, about 1 s of CPU on every
job start (docs/BENCHMARKS.md#startup). The result depends only on the unpatched code, the atheris
version and the first coverage-counter id the module gets; so this wrapper keeps each module's
patched code on disk (``marshal``, keyed by a hash of those) and loads it on the next start.

The counters are what must not change: atheris numbers them with ``_reserve_counter()`` in import
order, and libFuzzer's feedback is those numbers. Every module, cached or not, reserves the same
ids: one marker counter before the module, the module's own ``n`` counters, one marker after. A
cache entry is used only when the marker it was stored with is the one reserved now, so a warm
start has exactly the counter layout a cold start has (tests/engine/test_instrument_cache.py).

:func:`disable` turns instrumentation off in a process that only runs the harness (walk, replay,
minimize, fix check): coverage is libFuzzer's business, and such a process never imports atheris
for it. Cache directory: ``$FUZZFARM_CODE_CACHE``, else
``$XDG_CACHE_HOME/fuzzfarm/instrumented`` (``~/.cache/...``); an unwritable one only costs speed.
Importing this module imports nothing of fuzzfarm (docs/TRAPS.md#g8).
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import sys
import types

_OFF = False  # set by disable(): this process runs harness code uninstrumented
_MODULE_SLOT = "__fuzzfarm_atheris_module__"  # stands for the atheris module constant on disk
_FORMAT = b"fuzzfarm-instrumented-1"


def cache_dir() -> str:
    explicit = os.environ.get("FUZZFARM_CODE_CACHE")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "fuzzfarm", "instrumented")


def _atheris_identity(atheris) -> bytes:
    """What makes patched code from one atheris differ from another's: its instrumenter's file
    (size and mtime change with every install) and the interpreter's bytecode version."""
    from atheris import instrument_bytecode
    st = os.stat(instrument_bytecode.__file__)
    return f"{st.st_size}:{st.st_mtime_ns}:{sys.implementation.cache_tag}:{sys.version}".encode()


def _swap_consts(code: types.CodeType, is_old, new) -> types.CodeType:
    """``code`` with every constant for which ``is_old(c)``, in it and its nested code objects,
    replaced by ``new``."""
    consts = tuple(new if is_old(c) else _swap_consts(c, is_old, new) if isinstance(c, types.CodeType) else c
                   for c in code.co_consts)
    return code.replace(co_consts=consts)


def _is_slot(c) -> bool:
    return isinstance(c, str) and c == _MODULE_SLOT


def _identity_of(code: types.CodeType) -> bytes:
    """What the unpatched module code is: its file name and source text (one source compiles to
    one code object under one interpreter, which the key also names); the marshalled code when
    the source cannot be read. Not the marshalled code always: the same code marshals to other
    bytes when it was loaded from a ``.pyc`` rather than compiled (shared references differ)."""
    try:
        with open(code.co_filename, "rb") as f:
            return code.co_filename.encode() + b"\0" + f.read()
    except (OSError, TypeError, ValueError):
        return marshal.dumps(code)


class _CachedPatcher:
    def __init__(self, atheris, real_patch_code, directory: str):
        self.atheris = atheris
        self.real = real_patch_code
        self.directory = directory
        self.identity = _atheris_identity(atheris)
        self.hits = self.misses = 0

    def _path(self, code: types.CodeType, trace_dataflow: bool) -> str:
        h = hashlib.sha256(_FORMAT)
        h.update(self.identity)
        h.update(repr(bool(trace_dataflow)).encode())
        h.update(_identity_of(code))
        return os.path.join(self.directory, h.hexdigest() + ".code")

    def _load(self, path: str):
        try:
            with open(path, "rb") as f:
                start, n, code = marshal.load(f)
        except (OSError, EOFError, ValueError, TypeError):
            return None
        return start, n, code

    def _store(self, path: str, start: int, n: int, patched: types.CodeType) -> None:
        try:
            blob = marshal.dumps((start, n, _swap_consts(patched, lambda c: c is self.atheris, _MODULE_SLOT)))
        except ValueError:  # a constant marshal cannot write: this module is simply not cached
            return
        try:
            os.makedirs(self.directory, exist_ok=True)
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "wb") as f:
                f.write(blob)
            os.replace(tmp, path)  # atomic: concurrent job starts never read half a file
        except OSError:
            pass

    def __call__(self, code: types.CodeType, trace_dataflow: bool, *rest, **kw):
        if kw or rest:  # a call shape this cache was not written for: patch as atheris does
            return self.real(code, trace_dataflow, *rest, **kw)
        reserve = self.atheris._reserve_counter
        path = self._path(code, trace_dataflow)
        start = reserve()  # marker before the module's own counters (see the module docstring)
        entry = self._load(path)
        if entry is not None and entry[0] == start:
            _, n, stored = entry
            for _ in range(n):
                reserve()
            reserve()  # marker after
            self.hits += 1
            return _swap_consts(stored, _is_slot, self.atheris)
        patched = self.real(code, trace_dataflow)
        end = reserve()
        self._store(path, start, end - start - 1, patched)
        self.misses += 1
        return patched


def disable() -> None:
    """Run harness code uninstrumented in this process (call before loading the harness).

    :func:`instrument_imports` becomes a plain block, and so does ``atheris.instrument_imports()``
    for a harness that calls atheris's own: patched now if atheris is loaded, else the moment it
    is imported (a harness of ours never imports atheris, so neither does this process)."""
    global _OFF
    _OFF = True
    if "atheris" in sys.modules:
        _switch_off(sys.modules["atheris"])
    elif not any(isinstance(f, _SwitchOffOnImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _SwitchOffOnImport())


def _switch_off(atheris) -> None:
    atheris.instrument_imports = lambda *a, **k: contextlib.nullcontext()


class _SwitchOffOnImport:
    """A meta-path finder that only watches for ``import atheris`` and switches it off once loaded."""

    def find_spec(self, name, path=None, target=None):
        if name != "atheris":
            return None
        sys.meta_path.remove(self)
        import importlib.util
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_then_switch_off(module):
            exec_module(module)
            _switch_off(module)

        spec.loader.exec_module = exec_then_switch_off
        return spec


def _import_runtime_dependencies() -> None:
    """Import, outside the hook, the runtime's stdlib and third-party modules that neither atheris
    nor ``site`` has loaded by then: otherwise atheris patches them too (about 0.1 s of a first
    start, for coverage nobody wants), in every harness, ours or a user's."""
    import bisect  # noqa: F401
    import heapq  # noqa: F401
    import sysconfig

    import greenlet  # noqa: F401

    # sysconfig loads its _sysconfigdata module on first use, which fuzzfarm.gosim.failures makes
    # inside the hook: load it here so atheris does not patch a module of data.
    sysconfig.get_paths()


@contextlib.contextmanager
def instrument_imports(**kwargs):
    """``with instrument_imports(): import ...``: ``atheris.instrument_imports(**kwargs)`` with
    each module's patched code taken from the cache when it is there (see the module docstring)."""
    if _OFF:
        yield None
        return
    import atheris
    from atheris import import_hook

    manager = atheris.instrument_imports(**kwargs)
    if not isinstance(manager, import_hook.HookManager):  # instrumentation is off in this process
        with manager:
            yield None
        return
    _import_runtime_dependencies()
    real = import_hook.patch_code
    patcher = _CachedPatcher(atheris, real, cache_dir())
    import_hook.patch_code = patcher
    try:
        with manager:
            yield patcher
    finally:
        import_hook.patch_code = real
