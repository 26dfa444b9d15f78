"""A fuzz child imports only what fuzzing needs: never the farm's machinery (Celery, kombu, Redis,
Rich, Typer, fuzzfarm's farm/cli/store), and a walk child not the crash-handling code before its
first failure. Each check runs in a fresh interpreter with the engine's child environment, the
way a job starts the child, and reads ``sys.modules`` (a property, not a timing; the start-up
figures are ``python -m benchmarks.startup``, docs/BENCHMARKS.md#startup)."""

from __future__ import annotations

import json
import subprocess
import sys

from fuzzfarm import harness as H
from fuzzfarm.harness import child as process

FORBIDDEN_ROOTS = ("celery", "kombu", "redis", "rich", "typer", "click", "billiard", "amqp")
FORBIDDEN_OURS = ("fuzzfarm.farm", "fuzzfarm.cli", "fuzzfarm.farm.store")

# What the atheris child does before libFuzzer starts: import the harness module, whose
# top level imports the runtime and the ports inside atheris.instrument_imports().
ATHERIS_CHILD = """
import importlib, json, sys
importlib.import_module(sys.argv[1])
print(json.dumps(sorted(sys.modules)))
"""

# ``python -m fuzzfarm.engine.walk`` itself, for a few runs of the fixed variant; then the modules.
WALK_CHILD = """
import json, sys, tempfile
from fuzzfarm.engine import walk
rc = walk.main([sys.argv[1], "fixed", "--strategy=random", "--seed=1", "--max-time=0.05",
                "--artifacts=" + tempfile.mkdtemp()])
print(json.dumps({"rc": rc, "modules": sorted(sys.modules)}))
"""


def _child(code: str, arg: str, variant: str) -> tuple[list[str], set[str]]:
    """The child's stdout lines before the last, and the modules it had imported."""
    env = process.child_env({"FUZZFARM_VARIANT": variant})
    p = subprocess.run([sys.executable, "-c", code, arg], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    lines = p.stdout.strip().splitlines()
    last = json.loads(lines[-1])
    return lines[:-1], set(last["modules"] if isinstance(last, dict) else last)


def _machinery(mods: set[str]) -> list[str]:
    return sorted(m for m in mods if m.split(".")[0] in FORBIDDEN_ROOTS
                  or any(m == o or m.startswith(o + ".") for o in FORBIDDEN_OURS))


def test_atheris_child_imports_no_farm_machinery():
    reg = H.registry()
    assert reg, "no harness installed"
    for name, info in reg.items():
        _, mods = _child(ATHERIS_CHILD, info.module, "fixed")
        assert info.module in mods and "fuzzfarm.gosim" in mods  # the import did happen
        assert not _machinery(mods), f"harness {name}: the fuzz child imports {_machinery(mods)}"


def test_walk_child_imports_neither_farm_machinery_nor_crash_handling_before_a_failure():
    for name in H.registry():
        out, mods = _child(WALK_CHILD, name, "fixed")
        done = json.loads(out[-1])
        assert done.get("done") and done["execs"] > 0, out  # it walked
        assert not _machinery(mods), f"harness {name}: the walk child imports {_machinery(mods)}"
        # Coverage is libFuzzer's business: a walk never loads atheris (fuzzfarm/instrument.py).
        assert "atheris" not in mods, f"harness {name}: the walk child imports atheris"
        if done["crashes"] or done["unreplayable"]:
            continue  # a failure (a hazard the fixed variant keeps) rightly loads crash handling
        # Imported at the first failure only (fuzzfarm/engine/walk.py), and merge_corpus on use
        # (fuzzfarm/engine/__init__.py): neither is needed to start walking.
        late = sorted(m for m in mods if m.startswith(("fuzzfarm.collector", "fuzzfarm.harness.runone",
                                                      "fuzzfarm.engine.corpus", "fuzzfarm.harness.child")))
        assert not late, f"harness {name}: the walk child imports {late} before any failure"


# The walk child as ``python -m fuzzfarm.engine.walk`` runs it (runpy, ``__main__``), nothing
# imported before it but runpy and sys; then what it imported, and whether ``inspect`` ever ran.
WALK_MAIN = """
import runpy, sys
sys.argv = ["walk", *sys.argv[1:]]
try:
    runpy.run_module("fuzzfarm.engine.walk", run_name="__main__", alter_sys=True)
except SystemExit as e:
    rc = e.code
insp = sys.modules.get("inspect")
import json
print(json.dumps({"rc": rc, "modules": sorted(sys.modules),
                  "inspect_ran": insp is not None and "signature" in vars(insp)}))
"""

# Stdlib modules a walk child once imported before its first schedule and no longer needs there,
# each a share of its start-up (docs/BENCHMARKS.md#startup): ast, dis (with inspect, through
# dataclasses: fuzzfarm/engine/lazy_stdlib.py), shutil (argparse's terminal width), base64 (the
# job model), shlex and textwrap; and what merge_corpus would bring (fuzzfarm/engine/__init__.py).
NOT_BEFORE_FIRST_SCHEDULE = ("ast", "dis", "shutil", "base64", "shlex", "textwrap", "subprocess", "logging",
                             "ctypes", "tempfile", "importlib.metadata")


def test_walk_child_leaves_heavy_stdlib_unloaded_before_a_failure(tmp_path):
    for name, info in H.registry().items():
        env = process.child_env({"FUZZFARM_VARIANT": "fixed"})
        p = subprocess.run([sys.executable, "-c", WALK_MAIN, name, "fixed", "--strategy=random", "--seed=1",
                            "--max-time=0.05", f"--artifacts={tmp_path}", f"--module={info.module}"],
                           env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert p.returncode == 0, p.stderr[-2000:]
        lines = p.stdout.strip().splitlines()
        got, done = json.loads(lines[-1]), json.loads(lines[-2])
        assert got["rc"] == 0 and done.get("done") and done["execs"] > 0, lines[-3:]  # it walked
        if done["crashes"] or done["unreplayable"]:
            continue  # crash handling may rightly need any of them
        mods = set(got["modules"])
        assert info.module in mods and "fuzzfarm.gosim" in mods and "dataclasses" in mods
        assert not got["inspect_ran"], f"harness {name}: inspect ran in the walk child (a dataclass without a docstring?)"
        heavy = sorted(m for m in NOT_BEFORE_FIRST_SCHEDULE if m in mods)
        assert not heavy, f"harness {name}: the walk child imports {heavy} before any failure"


def test_atheris_child_instruments_only_our_code():
    # Coverage is only wanted in the runtime and the ports: a stdlib or third-party module first
    # imported inside instrument_imports() gets patched too (heapq, sysconfig and greenlet cost
    # ~0.1 s of a first start, docs/BENCHMARKS.md#startup), so instrument_imports() imports the
    # runtime's ones before its hook (fuzzfarm/instrument.py).
    for name, info in H.registry().items():
        env = process.child_env({"FUZZFARM_VARIANT": "fixed"})
        p = subprocess.run([sys.executable, "-c", ATHERIS_CHILD, info.module], env=env, capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 0, p.stderr[-2000:]
        patched = [ln.split("INFO: Instrumenting ", 1)[1].strip() for ln in p.stderr.splitlines()
                   if "INFO: Instrumenting " in ln]
        assert any(m.startswith("fuzzfarm.gosim") for m in patched), f"harness {name}: nothing instrumented"
        own = info.module.split(".")[0]  # a plugin's own package (its port) is its harness's code too
        others = [m for m in patched if not m.startswith(("fuzzfarm", "harnesses", own))]
        assert not others, f"harness {name}: atheris instruments {others}, not only fuzzfarm's code"
