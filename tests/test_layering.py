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
    ("import fuzzfarm.farm.store", ("celery", "kombu", "fuzzfarm.farm.celery_app", "fuzzfarm.farm.tasks")),
    ("import fuzzfarm.signature", ("fuzzfarm.collector", "fuzzfarm.engine", "fuzzfarm.farm")),
    ("import fuzzfarm.engine.walk, fuzzfarm.engine.target", ("fuzzfarm.collector", "fuzzfarm.farm")),
    ("import fuzzfarm.collector", ("celery", "fuzzfarm.farm")),
])
def test_no_import_runs_up_the_layers(stmt, forbidden):
    loaded = _modules_after(stmt)
    assert not [m for m in forbidden if m in loaded], sorted(m for m in loaded if m.startswith(forbidden))
