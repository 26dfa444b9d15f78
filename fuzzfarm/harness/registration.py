"""The harness registry: entry points of ``fuzzfarm.harnesses``, loading a harness module with a
one-line :class:`HarnessError` for each way it can fail, and its source hash (what an input's
behaviour depends on, compared by submitter and worker)."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import importlib.util
import os
from types import ModuleType

from .contract import HarnessError, fixed_may_fail_error

ENTRY_POINT_GROUP = "fuzzfarm.harnesses"
_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # fuzzfarm/
# fuzzfarm code whose change changes what an input does: hashed into every harness's source hash
# (the harness's own modules are added per harness, see HarnessInfo.source_files).
_BEHAVIOUR_TREES = ("gosim", "strategies", "ports", "examples")
_BEHAVIOUR_FILES = ("harness/scenario_reader.py", "harness/contract.py", "harness/knobs.py", "harness/declaration.py")
RESTART_HINT = "restart the workers so they see it, then resubmit"




@dataclasses.dataclass(frozen=True)
class HarnessInfo:
    """A registered harness: ``name``, importable ``module`` and the distribution providing it."""

    name: str
    module: str

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
        """Source file of the harness module, found without importing it (a package installed
        after this process started is found by :func:`refresh_installed`)."""
        origin = _module_file(self.module)
        if origin is None and refresh_installed():
            origin = _module_file(self.module)
        if origin is None:
            raise HarnessError(f"harness {self.name!r} is registered but its module {self.module} is not importable "
                               f"here (installed after this process started, or removed?); {RESTART_HINT}")
        return origin

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


def _module_file(name: str) -> str | None:
    """The source file of module ``name`` (``.py``), found without importing it or its
    packages (only the top-level package's location is asked of the import system)."""
    parts = name.split(".")
    try:
        spec = importlib.util.find_spec(parts[0])
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if len(parts) == 1:
        return spec.origin if spec.origin and spec.origin.endswith(".py") else None
    dirs = list(spec.submodule_search_locations or [])
    for i, part in enumerate(parts[1:], 1):
        last = i == len(parts) - 1
        nxt = []
        for d in dirs:
            if last and os.path.isfile(os.path.join(d, part + ".py")):
                return os.path.join(d, part + ".py")
            if os.path.isdir(os.path.join(d, part)):
                nxt.append(os.path.join(d, part))
        dirs = nxt
        if last:
            for d in dirs:
                if os.path.isfile(os.path.join(d, "__init__.py")):
                    return os.path.join(d, "__init__.py")
    return None


def _imported_names(path: str, module: str) -> set[str]:
    """Dotted names an ``import`` statement anywhere in ``path`` (module ``module``) may load:
    the module, its parent packages, and ``from X import y`` both as ``X`` and ``X.y``."""
    import ast

    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
    except (OSError, SyntaxError, ValueError):
        return set()
    package = module if os.path.basename(path) == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)] if package else []
                base = ".".join(anchor + ([base] if base else []))
            if base:
                names.add(base)
                names.update(f"{base}.{a.name}" for a in node.names if a.name != "*")
    out = set()
    for n in names:
        parts = n.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return out


def _import_closure(module: str, packages: frozenset[str]) -> dict[str, str]:
    """``{module: file}`` for ``module`` and every module in ``packages`` it imports, transitively."""
    seen: dict[str, str] = {}
    parts = module.split(".")
    todo = [module] + [".".join(parts[:i]) for i in range(1, len(parts))]  # its packages' __init__ run too
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        f = _module_file(m)
        if f is None:
            continue
        seen[m] = f
        todo.extend(n for n in _imported_names(f, m) if n.split(".")[0] in packages and n not in seen)
    return seen


def _missing_is_own(e: ModuleNotFoundError, module: str) -> bool:
    """Whether the missing module is the harness module or one of its packages (not a dependency)."""
    return bool(e.name) and (module == e.name or module.startswith(e.name + "."))


def refresh_installed() -> bool:
    """Let this long-running process see packages installed after it started: re-read the
    ``.pth`` files of the site directories (``pip install -e`` puts the path or import hook of
    an editable install there; they are read once, at interpreter start) and drop the import
    system's directory caches. Returns whether anything could change (always True)."""
    import site

    dirs = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
    if site.ENABLE_USER_SITE and hasattr(site, "getusersitepackages"):
        dirs.append(site.getusersitepackages())
    for d in dirs:
        if os.path.isdir(d):
            site.addsitedir(d)
    importlib.invalidate_caches()
    return True


def registry() -> dict[str, HarnessInfo]:
    """Every installed harness by name (entry points of group ``fuzzfarm.harnesses``)."""
    from importlib import metadata  # on first use: an atheris child never needs it (docs/BENCHMARKS.md#startup)

    out = {}
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        out[ep.name] = HarnessInfo(ep.name, ep.value)
    return dict(sorted(out.items()))


def get(name: str) -> HarnessInfo:
    """The harness registered as ``name``. Raises HarnessError listing the known names."""
    reg = registry()
    if name not in reg:
        refresh_installed()  # installed after this process started?
        reg = registry()
    if name not in reg:
        known = ", ".join(reg) or "none (is fuzzfarm installed with pip install -e .?)"
        raise HarnessError(f"unknown harness {name!r}; installed harnesses: {known}")
    return reg[name]
