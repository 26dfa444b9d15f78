"""Harness declaration, scaffold and source hash, without a farm (see tests/farm/test_plugin_install.py
and tests/docs/test_harness_guide.py for the real workers and the real pip)."""

from __future__ import annotations

import importlib
import os
import sys

import pytest

from fuzzfarm import harness as H
from fuzzfarm.cli.new import ScaffoldError, package_name, scaffold
from fuzzfarm.harness.target import Target


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """A scaffolded package ``unit-race`` importable from ``tmp_path/pkg`` (not registered)."""
    root = tmp_path / "pkg"
    scaffold("unit-race", str(root))
    monkeypatch.syspath_prepend(str(root))
    yield root, H.Target("unit-race", f"{package_name('unit-race')}.harness")
    for m in [m for m in sys.modules if m.startswith("unit_race_harness")]:
        del sys.modules[m]


def test_the_hash_covers_the_port_the_harness_imports(plugin):
    root, info = plugin
    names = [n for n, _ in info.source_files()]
    assert names[:3] == ["harness/harness.py", "module/unit_race_harness", "module/unit_race_harness.port"]
    assert any(n.startswith("examples/") for n in names)  # the examples harness's cases
    before = info.source_hash()
    port = root / "unit_race_harness" / "port.py"
    port.write_text(port.read_text().replace("TICK = 1.0", "TICK = 2.0"))
    assert info.source_hash() != before
    (root / "unit_race_harness" / "unused.py").write_text("X = 1\n")  # not imported: not behaviour
    after = info.source_hash()
    assert info.source_hash() == after


def test_relative_and_nested_imports_are_followed(tmp_path, monkeypatch):
    pkg = tmp_path / "rel" / "relpkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "deep.py").write_text("def f():\n    from .. import leaf\n")
    (pkg / "leaf.py").write_text("")
    (pkg / "h.py").write_text("from .sub import deep\n")
    monkeypatch.syspath_prepend(str(tmp_path / "rel"))
    names = {n for n, _ in H.Target("rel", "relpkg.h").source_files()}
    assert {"module/relpkg", "module/relpkg.sub", "module/relpkg.sub.deep", "module/relpkg.leaf"} <= names


def test_declared_harness_contract_and_source_literals(plugin):
    _, info = plugin
    mod = importlib.import_module(info.module)
    assert mod.NAME == "unit-race" and mod.VARIANTS == ("buggy", "fixed") and mod.FIXED_MAY_FAIL == frozenset()
    ex = mod.execute(b"\x00\x01\x00\x00", "buggy")  # docs/HARNESSES.md section 4
    assert ex.failure is not None and mod.signature(ex.failure).startswith("goroutine panic at Tracker.stop")
    assert mod.execute(b"\x00\x01\x00\x00", "fixed").failure is None
    with pytest.raises(ValueError, match="unknown variant"):
        mod.execute(b"", "nope")
    t = Target(info.name, info.module, info.path, False)
    assert t.declared_variants() == ("buggy", "fixed")  # read from declare(...) without importing
    assert Target("checker", "harnesses.checker_race", H.get("checker").path, True).kept_by_fix(
        "WaitGroup reused before previous Wait returned", ["Group.wait", "WaitForControlledPods.gather", "execute.main"])
    assert Target("cluster-builder", "", H.get("cluster-builder").path, True).declared_variants() == (
        "buggy", "fixed", "library-fixed")


def test_scaffold_refuses_bad_names_and_used_places(tmp_path):
    for bad in ("", "Upper", "1abc", "a_b", "a--b", "-a"):
        with pytest.raises(ScaffoldError, match="not valid"):
            scaffold(bad, str(tmp_path / "x"))
    with pytest.raises(ScaffoldError, match="already installed"):
        scaffold("checker", str(tmp_path / "y"))
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "f").write_text("")
    with pytest.raises(ScaffoldError, match="not an empty directory"):
        scaffold("fresh", str(tmp_path / "full"))
    assert os.listdir(tmp_path / "full") == ["f"]


def test_a_module_missing_here_names_the_restart(tmp_path):
    info = H.Target("ghost", "ghost_pkg_not_installed.harness")
    with pytest.raises(H.HarnessError, match="restart the workers so they see it, then resubmit"):
        info.path


def test_demo_and_new_refuse_bad_names_in_one_line_before_starting_anything(tmp_path):
    import subprocess
    for args, words in ((["demo", "no-such-harness"], "unknown harness 'no-such-harness'"),
                        (["new", "Bad_Name", "-o", str(tmp_path / "n")], "is not valid")):
        p = subprocess.run([sys.executable, "-m", "fuzzfarm.cli", *args], capture_output=True, text=True, timeout=120,
                           cwd=str(tmp_path), env={k: v for k, v in os.environ.items() if k != "FUZZFARM_REDIS_URL"})
        assert p.returncode == 2 and p.stderr.count("\n") == 1 and words in p.stderr, p.stderr
        assert "fuzzfarm demo: starting" not in p.stderr and not (tmp_path / "n").exists()


def test_refreshing_the_installed_packages_does_not_pile_up_import_hooks():
    import sys as _sys
    before = (list(_sys.meta_path), list(_sys.path_hooks), list(_sys.path))
    for _ in range(20):
        H.refresh_installed()
    assert (len(_sys.meta_path), len(_sys.path_hooks), len(_sys.path)) == tuple(len(x) for x in before)
