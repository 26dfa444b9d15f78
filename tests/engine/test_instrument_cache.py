"""The instrumented-code cache (fuzzfarm/instrument.py) changes start-up, never fuzzing: a warm
start must give libFuzzer the very coverage-counter layout a cold start gives, so the same seed
finds the same corpus, byte for byte. And a process that switched instrumentation off never
imports atheris for it."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from fuzzfarm import harness as H
from fuzzfarm.harness import child as process

_DONE = re.compile(r"#(\d+)\s+DONE\s+cov: (\d+) ft: (\d+) corp: (\d+)/")


def _fuzz(cache: str, corpus: str, tmp_path) -> tuple[tuple[str, ...], list[str]]:
    """One bare atheris run of cluster-builder/fixed: (its DONE figures, the corpus file names)."""
    os.makedirs(corpus, exist_ok=True)
    art = tmp_path / "art"
    art.mkdir(exist_ok=True)
    env = process.child_env({"FUZZFARM_VARIANT": "fixed", "FUZZFARM_CODE_CACHE": cache})
    p = subprocess.run([sys.executable, H.get("cluster-builder").path, "-runs=300", "-seed=5",
                        f"-artifact_prefix={art}/", corpus], env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    done = _DONE.search(p.stderr)
    assert done, p.stderr[-2000:]
    return done.groups(), sorted(os.listdir(corpus))


def test_a_warm_start_fuzzes_exactly_as_a_cold_one(tmp_path):
    cache = str(tmp_path / "cache")
    cold = _fuzz(cache, str(tmp_path / "c1"), tmp_path)
    entries = {f: os.stat(os.path.join(cache, f)).st_mtime_ns for f in os.listdir(cache)}
    assert len(entries) >= 10  # the runtime's and the ports' modules, one entry each
    warm = _fuzz(cache, str(tmp_path / "c2"), tmp_path)
    # Served from the cache: nothing was patched again, so nothing was written again.
    assert {f: os.stat(os.path.join(cache, f)).st_mtime_ns for f in os.listdir(cache)} == entries
    assert warm == cold  # same coverage, features and corpus: the counter layout is the same
    assert int(cold[0][1]) > 100  # and there is coverage to compare (the code is instrumented)


def test_a_damaged_cache_entry_is_patched_again(tmp_path):
    cache = str(tmp_path / "cache")
    cold = _fuzz(cache, str(tmp_path / "c1"), tmp_path)
    for f in sorted(os.listdir(cache))[:3]:
        with open(os.path.join(cache, f), "wb") as fh:
            fh.write(b"not marshal")
    assert _fuzz(cache, str(tmp_path / "c2"), tmp_path) == cold


SWITCHED_OFF = """
import json, sys
from fuzzfarm.instrument import disable
disable()
import importlib
mod = importlib.import_module(sys.argv[1])
loaded = "atheris" in sys.modules
import atheris  # a user's harness may import it; its instrument_imports is then a plain block
import contextlib
print(json.dumps({"atheris_loaded": loaded,
                  "plain": isinstance(atheris.instrument_imports(), contextlib.nullcontext)}))
"""


def test_instrumentation_off_never_imports_atheris_and_switches_off_atheris_own_hook():
    env = process.child_env({"FUZZFARM_VARIANT": "fixed"})
    for name in ("checker", "cluster-builder"):
        p = subprocess.run([sys.executable, "-c", SWITCHED_OFF, H.get(name).module], env=env,
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr[-2000:]
        assert p.stdout.strip().endswith('{"atheris_loaded": false, "plain": true}'), p.stdout
