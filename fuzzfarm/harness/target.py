"""One harness, as every layer names it (:class:`Target`), the registry of installed harnesses,
and how a child process finds it.

The public API takes registered harness names (a submit never carries code or a path).
fuzzfarm's own tests also pass a ``Target(name, module)`` for a harness module that is not
registered; child processes then get ``--module=MOD`` and a PYTHONPATH entry that makes it importable.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import os
import threading
from types import ModuleType

from .contract import HarnessError, fixed_may_fail_error
from .knobs import MAX_STARVATION_ENV, max_starvation_text, parse_max_starvation
from .registration import (_BEHAVIOUR_FILES, _BEHAVIOUR_TREES, _PKG_DIR, ENTRY_POINT_GROUP, RESTART_HINT,
                           _import_closure, _missing_is_own, _module_file, refresh_installed)

# "AST constructor recursion depth mismatch" (SystemError) when two threads parse at once: seen in
# benchmarks/farm_scaling.py's two bare jobs; the collector's threads (farm/triage_ahead.py) resolve
# harnesses side by side too.
_PARSE_LOCK = threading.Lock()


@dataclasses.dataclass(frozen=True)
class Target:
    """A harness: its name, its importable module, whether it is registered, and the campaign's
    starvation bound for its children. ``file``: its source file when the caller knows it; else
    :attr:`path` finds it without importing the module."""

    name: str
    module: str
    file: str | None = None
    registered: bool = False
    # The campaign's starvation bound as its children get it (FUZZFARM_MAX_STARVATION_S text:
    # seconds or "none"); None: the campaign set none, the worker's own setting applies.
    max_starvation: str | None = None

    def load(self) -> ModuleType:
        """Import the harness module. Raises HarnessError naming the cause (syntax error,
        missing dependency, missing contract attribute)."""
        try:
            try:
                mod = importlib.import_module(self.module)
            except ModuleNotFoundError as e:
                if not _missing_is_own(e, self.module) or not refresh_installed():
                    raise
                mod = importlib.import_module(self.module)  # installed after this process started
        except SyntaxError as e:
            raise HarnessError(f"harness {self.name!r} ({self.module}) has a syntax error at "
                               f"{e.filename}:{e.lineno}: SyntaxError: {e.msg}; fix the harness and reinstall it") from e
        except ImportError as e:
            raise HarnessError(f"harness {self.name!r} ({self.module}) failed to import: {e}; "
                               f"install its dependencies on this worker") from e
        except Exception as e:  # noqa: BLE001 - any import-time crash is the harness's fault
            raise HarnessError(f"harness {self.name!r} ({self.module}) crashed on import: "
                               f"{type(e).__name__}: {e}") from e
        for attr in ("NAME", "VARIANTS", "execute", "TestOneInput"):
            if not hasattr(mod, attr):
                raise HarnessError(f"harness {self.name!r} ({self.module}) lacks {attr}; see fuzzfarm.harness for the contract")
        bad = fixed_may_fail_error(getattr(mod, "FIXED_MAY_FAIL", frozenset()), self.name)
        if bad:  # a hand-written module constant (declare() refuses it at the declaration)
            raise HarnessError(bad)
        return mod

    @property
    def path(self) -> str:
        """Source file of the harness module: ``file``, else found without importing it (a package
        installed after this process started is found by :func:`refresh_installed`)."""
        if self.file is not None:
            return self.file
        origin = _module_file(self.module)
        if origin is None and refresh_installed():
            origin = _module_file(self.module)
        if origin is None:
            raise HarnessError(f"harness {self.name!r} is registered but its module {self.module} is not importable "
                               f"here (installed after this process started, or removed?); {RESTART_HINT}")
        return os.path.abspath(origin)

    def own_packages(self) -> frozenset[str]:
        """Top-level package names of the distribution that registers this harness (its
        ``top_level.txt``, else the packages its files are in) plus the harness module's own."""
        from importlib import metadata  # on first use (docs/BENCHMARKS.md#startup)
        names = {self.module.split(".")[0]}
        for ep in metadata.entry_points(group=ENTRY_POINT_GROUP, name=self.name):
            dist = getattr(ep, "dist", None)
            if ep.value != self.module or dist is None:
                continue
            top = dist.read_text("top_level.txt")
            if top:
                names.update(line.strip() for line in top.splitlines() if line.strip())
            else:
                names.update(str(f).split("/")[0].removesuffix(".py") for f in (dist.files or ())
                             if str(f).endswith(".py") and ".dist-info" not in str(f))
        return frozenset(names)

    def source_files(self) -> list[tuple[str, str]]:
        """``(name, path)`` of every file the source hash covers: the harness module, every
        module it imports (statically, transitively, anywhere in the file) from its own
        distribution's packages, and fuzzfarm's behaviour code (``_BEHAVIOUR_TREES``/``_FILES``).
        Modules loaded by name at run time (``importlib.import_module``) are not followed."""
        own = self.own_packages() - {"fuzzfarm"}
        files = [(f"harness/{os.path.basename(self.path)}", self.path)]
        files += [(f"module/{m}", f) for m, f in sorted(_import_closure(self.module, own).items()) if m != self.module]
        files += [(fn, os.path.join(_PKG_DIR, fn)) for fn in _BEHAVIOUR_FILES]
        for tree in _BEHAVIOUR_TREES:
            root = os.path.join(_PKG_DIR, tree)
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames.sort()
                for fn in sorted(filenames):
                    if fn.endswith(".py"):
                        full = os.path.join(dirpath, fn)
                        files.append((os.path.relpath(full, _PKG_DIR), full))
        return files

    def source_hash(self) -> str:
        """sha256 (hex) over :meth:`source_files`: what an input's behaviour depends on.

        Submitter and worker compare it: a different hash means they would run different code.
        """
        h = hashlib.sha256()
        for rel, full in self.source_files():
            with open(full, "rb") as f:
                h.update(rel.encode() + b"\0" + f.read() + b"\0")
        return h.hexdigest()

    def child_args(self) -> list[str]:
        """Extra argv for ``python -m fuzzfarm.runone`` / collector / walk children: the module,
        always. The parent has resolved (and, for a registered name, checked) it; a child that had
        to look the name up again would import ``importlib.metadata`` and scan every installed
        distribution's entry points, the largest share of its start-up (docs/BENCHMARKS.md#startup)."""
        return [f"--module={self.module}"]

    def with_max_starvation(self, bound) -> "Target":
        """This target with starvation bound ``bound`` for its children: seconds, ``"none"``
        (no bound in time), or None (keep the worker's setting). ValueError for a bad value."""
        if bound is None or bound == "":
            return self
        return dataclasses.replace(self, max_starvation=max_starvation_text(parse_max_starvation(bound)))

    def child_env(self, extra: dict | None = None) -> dict:
        """``process.child_env`` for a child that runs this harness: its PYTHONPATH entry and
        the campaign's starvation bound (over the worker's, which the allow-list passes on)."""
        from fuzzfarm.harness import child as process
        bound = {} if self.max_starvation is None else {MAX_STARVATION_ENV: self.max_starvation}
        return process.child_env({**bound, **(extra or {})}, pythonpath=self.pythonpath)

    def declared(self, name: str):
        """The literal value of the module-level assignment ``name = ...`` in the harness source,
        or of the matching keyword of its ``declare(...)`` call (``VARIANTS`` -> ``variants=``,
        ``FIXED_MAY_FAIL`` -> ``fixed_may_fail=``; a keyword naming a module-level constant is
        followed), read without importing it (a worker never imports harness code);
        ``frozenset(...)``, ``set(...)`` and ``tuple(...)`` around a literal are unwrapped. None
        when the source cannot be read, has no such assignment, or it is not a literal."""
        import ast  # here: a walk child never reads a declaration (docs/BENCHMARKS.md#startup)

        try:
            with open(self.path, encoding="utf-8") as f:
                source = f.read()
            with _PARSE_LOCK:  # CPython 3.11: ast.parse in two threads at once can raise SystemError
                tree = ast.parse(source)
        except (OSError, SyntaxError, ValueError):
            return None
        assigned = {t.id: node.value for node in tree.body if isinstance(node, ast.Assign)
                    for t in node.targets if isinstance(t, ast.Name)}
        value = assigned.get(name)
        if value is None:
            value = _declare_keyword(tree, name.lower())
            if isinstance(value, ast.Name):
                value = assigned.get(value.id)
        return None if value is None else _literal(value)

    def declared_variants(self) -> tuple[str, ...] | None:
        """``VARIANTS`` from the harness source (see :meth:`declared`), or None."""
        value = self.declared("VARIANTS")
        return tuple(value) if isinstance(value, (tuple, list)) else None

    def fixed_may_fail(self) -> frozenset[str]:
        """``FIXED_MAY_FAIL``: the failures the harness declares reachable by its fixed variant
        too (upstream hazards the fix does not touch), each a signature ``kind at f1 <- f2 <-
        f3`` (:func:`fuzzfarm.harness.signature.hazard_name`): the one form the proof, the fix verdict,
        the fix fuzz, CI and the web view all match. Raises HarnessError (one line) for any
        other entry, a bare kind above all: a kind alone would hide any new bug of that kind
        the fix brings (``fuzzfarm.harness.fixed_may_fail_error``)."""
        value = self.declared("FIXED_MAY_FAIL")
        if value is None:
            return frozenset()
        bad = fixed_may_fail_error(value, self.name)
        if bad:
            raise HarnessError(bad)
        from fuzzfarm.harness.signature import hazard_name
        # normalized as a failure's hazard_name is, so "f1 <- f2" written with spaces matches
        return frozenset(hazard_name(k, s.split(" <- ")) for k, _, s in (v.partition(" at ") for v in value))

    def kept_by_fix(self, kind: str, crash_state) -> bool:
        """Whether failure ``kind`` at ``crash_state`` is a hazard the fix keeps (see
        :meth:`fixed_may_fail`): a reproducer of it that passes on ``fixed`` only shows that its
        schedule does not carry over; that failure on ``fixed`` is no news."""
        from fuzzfarm.harness.signature import hazard_name
        return hazard_name(kind, crash_state) in self.fixed_may_fail()

    def check_variant(self, variant: str) -> str | None:
        """An error sentence when ``variant`` is not declared by the harness, else None."""
        variants = self.declared_variants()
        if variants is not None and variant not in variants:
            return f"harness {self.name!r} has no variant {variant!r}; choose one of {', '.join(variants)}"
        return None

    @property
    def pythonpath(self) -> str | None:
        """sys.path entry a child needs to import an unregistered module (None if registered)."""
        if self.registered:
            return None
        root = os.path.dirname(self.path)
        for _ in range(self.module.count(".")):
            root = os.path.dirname(root)
        return root


def _declare_keyword(tree, keyword: str):
    """The ``keyword=`` argument (an AST node) of the module-level ``declare(...)`` call, or None."""
    import ast

    for node in tree.body:
        call = node.value if isinstance(node, (ast.Assign, ast.Expr)) else None
        if isinstance(call, ast.Call):
            fn = call.func
            fname = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else None
            if fname == "declare":
                for kw in call.keywords:
                    if kw.arg == keyword:
                        return kw.value
    return None


def _literal(value):
    import ast

    if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
            and value.func.id in ("frozenset", "set", "tuple") and len(value.args) == 1):
        value = value.args[0]
    try:
        return ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError):
        return None


def registry() -> dict[str, Target]:
    """Every installed harness by name (entry points of group ``fuzzfarm.harnesses``)."""
    from importlib import metadata  # on first use: an atheris child never needs it (docs/BENCHMARKS.md#startup)

    out = {}
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        out[ep.name] = Target(ep.name, ep.value, registered=True)
    return dict(sorted(out.items()))


def get(name: str) -> Target:
    """The harness registered as ``name``. Raises HarnessError listing the known names."""
    reg = registry()
    if name not in reg:
        refresh_installed()  # installed after this process started?
        reg = registry()
    if name not in reg:
        known = ", ".join(reg) or "none (is fuzzfarm installed with pip install -e .?)"
        raise HarnessError(f"unknown harness {name!r}; installed harnesses: {known}")
    return reg[name]


def resolve(harness, max_starvation=None) -> Target:
    """A registered name, or a :class:`Target` (tests: one of an unregistered module), as the
    :class:`Target` a job runs, its source file found (a Target with a ``file`` is taken as it is); with ``max_starvation`` (see
    :meth:`Target.with_max_starvation`) its children run under that bound.

    Raises HarnessError for an unknown name or a module that is not installed.
    """
    if not isinstance(harness, Target):
        harness = get(harness)
    elif harness.file is not None:  # resolved already
        return harness.with_max_starvation(max_starvation)
    else:
        known = registry().get(harness.name)
        harness = dataclasses.replace(harness, registered=known is not None and known.module == harness.module)
    return dataclasses.replace(harness, file=harness.path).with_max_starvation(max_starvation)


def from_child_args(name: str, module: str | None) -> Target:
    """Inverse of :meth:`Target.child_args` inside a child process (a ``--module`` is not looked up
    in the registry: scanning every distribution's entry points is a child's largest start-up cost)."""
    if module:
        target = Target(name, module)
        return dataclasses.replace(target, file=target.path)
    return resolve(name)
