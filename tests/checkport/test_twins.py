"""The Go twins (gotwins/) under real Go: each builds in both variants, the fixed variant's
TestScenario is clean under ``go test -race``, and the buggy one shows the seed bug.

Figures (fresh processes of a ``go test -race -c`` binary, 100 each, this 2-core machine):
checker buggy panics in objectChecker.Stop in 100/100 at GOMAXPROCS 1 and 2 (also without
-race); clusterbuilder buggy has its DefaultNamespaces race reported in 2/100 at GOMAXPROCS=2
and 0/100 at 1 (the TLS transport cache's lock orders the two cluster goroutines whenever one
finishes before the other starts). Fixed: 0/100 for both, both GOMAXPROCS.
"""

from __future__ import annotations

import os

import pytest

from fuzzfarm.gotool import run_go

GOTWINS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "gotwins")


def go_test(*args: str, gomaxprocs: int | None = None):
    env = {"GOMAXPROCS": str(gomaxprocs)} if gomaxprocs else None
    return run_go(["test", *args], cwd=GOTWINS, timeout=900, env=env)


@pytest.mark.parametrize("tags", [[], ["-tags", "fixed"]], ids=["buggy", "fixed"])
def test_twins_vet_clean_in_both_variants(go, tags):
    p = run_go(["vet", *tags, "./..."], cwd=GOTWINS)
    assert p.returncode == 0, p.stdout + p.stderr


def test_fixed_twins_are_clean_under_race(go):
    # -timeout: a fixed twin that hangs fails in 2 minutes, not after go test's 10-minute default
    p = go_test("-race", "-tags", "fixed", "-count=30", "-timeout=120s", "./...", gomaxprocs=2)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert "DATA RACE" not in p.stdout


def test_buggy_checker_twin_panics_in_object_checker_stop(go):
    p = go_test("-race", "-count=20", "./checker")
    assert p.returncode != 0, p.stdout
    out = p.stdout + p.stderr
    assert "panic: runtime error: invalid memory address or nil pointer dereference" in out, out[-3000:]
    assert "checker.(*objectChecker).Stop(" in out, out[-3000:]


@pytest.mark.slow
def test_buggy_clusterbuilder_twin_races_on_default_namespaces(go):
    """About 2 runs in 100 at GOMAXPROCS=2: 3,000 runs in one process (a miss has odds near
    0.98**3000). The report names defaultOpts' map write."""
    p = go_test("-race", "-count=3000", "./clusterbuilder", gomaxprocs=2)
    assert p.returncode != 0, p.stdout[-2000:]
    assert "WARNING: DATA RACE" in p.stdout and "cache.defaultOpts()" in p.stdout, p.stdout[-3000:]
