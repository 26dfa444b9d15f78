"""Where a harness's code is, found without importing it: the entry-point group of the registry,
a module's source file, the modules it imports (what its source hash covers: what an input's
behaviour depends on, compared by submitter and worker), and packages installed after this
process started. The harness type and the registry itself: ``fuzzfarm/harness/target.py``."""

from __future__ import annotations

import importlib
import importlib.util
import os

ENTRY_POINT_GROUP = "fuzzfarm.harnesses"
_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # fuzzfarm/
# fuzzfarm code whose change changes what an input does: hashed into every harness's source hash
# (the harness's own modules are added per harness, see Target.source_files in target.py).
_BEHAVIOUR_TREES = ("gosim", "strategies", "ports", "examples")
_BEHAVIOUR_FILES = ("harness/scenario_reader.py", "harness/contract.py", "harness/knobs.py", "harness/declaration.py")
RESTART_HINT = "restart the workers so they see it, then resubmit"


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
