"""Imports never run back up the layers: the store is below the farm (no Celery), the signature
module below both the engine and the collector (issue 17, item 8)."""

import subprocess
import sys

import pytest


def _modules_after(stmt: str) -> set[str]:
    code = f"import sys; {stmt}; print('\\n'.join(sorted(sys.modules)))"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return set(p.stdout.split())


@pytest.mark.parametrize("stmt, forbidden", [
    ("import fuzzfarm.store", ("celery", "kombu", "fuzzfarm.farm.celery_app", "fuzzfarm.farm.tasks")),
    ("import fuzzfarm.signature", ("fuzzfarm.collector", "fuzzfarm.engine", "fuzzfarm.farm")),
    ("import fuzzfarm.engine.walk, fuzzfarm.engine.target", ("fuzzfarm.collector", "fuzzfarm.farm")),
    ("import fuzzfarm.collector", ("celery", "fuzzfarm.farm")),
])
def test_no_import_runs_up_the_layers(stmt, forbidden):
    loaded = _modules_after(stmt)
    assert not [m for m in forbidden if m in loaded], sorted(m for m in loaded if m.startswith(forbidden))


def test_import_contracts_hold_imports_inside_functions_included():
    """pyproject.toml's import-linter contracts (grimp reads every import statement, those inside
    functions too): the front ends stand on fuzzfarm.views, nothing imports the cli, no cycle
    inside the cli or the web view."""
    import os
    import shutil
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    exe = shutil.which("lint-imports", path=os.path.dirname(sys.executable)) or shutil.which("lint-imports")
    assert exe, "lint-imports is missing: scripts/setup installs import-linter (the test extra)"
    p = subprocess.run([exe, "--no-cache"], cwd=root, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]


def test_the_no_import_of_the_cli_contract_names_every_package():
    import os
    import tomllib
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "pyproject.toml"), "rb") as f:
        contracts = tomllib.load(f)["tool"]["importlinter"]["contracts"]
    (forbid,) = [c for c in contracts if c["type"] == "forbidden" and c["forbidden_modules"] == ["fuzzfarm.cli"]]
    here = {n.removesuffix(".py") for n in os.listdir(os.path.join(root, "fuzzfarm"))
            if (n.endswith(".py") or os.path.isfile(os.path.join(root, "fuzzfarm", n, "__init__.py")))
            and not n.startswith("__")}
    assert set(forbid["source_modules"]) == {f"fuzzfarm.{n}" for n in here - {"cli"}}
