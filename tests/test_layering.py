"""Imports never run back up the layers: the store is below the farm (no Celery), the signature
module below both the engine and the collector (issue 17, item 8); the import-linter contracts in
pyproject.toml hold for every import, module-level or inside a function (issue 32, item 5)."""

import ast
import pathlib
import subprocess
import sys
import tomllib

import pytest


def _modules_after(stmt: str) -> set[str]:
    code = f"import sys; {stmt}; print('\\n'.join(sorted(sys.modules)))"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return set(p.stdout.split())


@pytest.mark.parametrize("stmt, forbidden", [
    ("import fuzzfarm.farm.store", ("celery", "kombu", "fuzzfarm.farm.celery_app", "fuzzfarm.farm.tasks")),
    ("import fuzzfarm.harness.signature", ("fuzzfarm.collector", "fuzzfarm.engine", "fuzzfarm.farm")),
    ("import fuzzfarm.engine.walk, fuzzfarm.harness.target", ("fuzzfarm.collector", "fuzzfarm.farm")),
    ("import fuzzfarm.collector", ("celery", "fuzzfarm.farm")),
])
def test_no_import_runs_up_the_layers(stmt, forbidden):
    loaded = _modules_after(stmt)
    assert not [m for m in forbidden if m in loaded], sorted(m for m in loaded if m.startswith(forbidden))


ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_the_import_contracts_hold():
    """pyproject.toml's import-linter contracts: the layers (no import runs up, from module level
    or from inside a function) and no cycle among the modules of one package but those named."""
    lint = pathlib.Path(sys.executable).parent / "lint-imports"
    p = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]


def test_every_module_is_in_a_layer():
    """A new top-level module or package joins a layer (import-linter's own ``exhaustive`` needs
    containers, which these layers are not)."""
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = next(c for c in conf["contracts"] if c["id"] == "layers")["layers"]
    named = {m.strip() for layer in layers for m in layer.replace("|", ":").split(":")}
    tops = {f"fuzzfarm.{p.stem if p.is_file() else p.name}" for p in (ROOT / "fuzzfarm").iterdir()
            if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()}
    assert tops <= named, sorted(tops - named)


def test_the_contracts_see_imports_made_inside_functions():
    """Every ``import`` inside a function of the product is an edge of the graph the contracts
    check (those imports closed every cycle the issue counted)."""
    import grimp

    graph = grimp.build_graph("fuzzfarm", cache_dir=None)
    inner = []
    for path in sorted((ROOT / "fuzzfarm").rglob("*.py")):
        mod = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for fn in ast.walk(ast.parse(path.read_text())):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(fn):
                    if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("fuzzfarm") \
                            and node.level == 0:
                        for alias in node.names:  # `from fuzzfarm.farm import jobs` imports fuzzfarm.farm.jobs
                            sub = f"{node.module}.{alias.name}"
                            inner.append((mod, sub if sub in graph.modules else node.module))
    assert len(inner) > 100
    missing = [(a, b) for a, b in inner if not graph.direct_import_exists(importer=a, imported=b)]
    assert not missing, missing[:10]
