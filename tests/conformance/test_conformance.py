"""gosim against real Go, construct by construct (docs/RUNTIME.md#conformance).

Each case is a Go function in ``go/*.go`` and its gosim twin in ``conform_*.py`` (see
``conform.py`` for what is compared and how). Go's outcomes come from fresh processes of one
program built once per session (``-race`` and plain); gosim's from a bounded exhaustive search
of the twin's schedules.
"""

from __future__ import annotations

import pytest

import conform
import conform_plain  # noqa: F401  (registers the cases)
import conform_race  # noqa: F401
from conform import CASES


@pytest.fixture(scope="session")
def go_bins(go, tmp_path_factory):
    return conform.build(str(tmp_path_factory.mktemp("conformance")))


@pytest.fixture(scope="session")
def go_names(go_bins):
    return {conform.key(n): n for n in conform.go_cases(go_bins["plain"])}


def test_every_go_case_has_a_twin_and_back(go_names):
    assert sorted(set(go_names) - set(CASES)) == [], "Go cases without a Python twin"
    assert sorted(set(CASES) - set(go_names)) == [], "Python twins without a Go case"


@pytest.mark.parametrize("k", sorted(CASES), ids=[CASES[k].name for k in sorted(CASES)])
def test_gosim_agrees_with_go(k, go_bins, go_names):
    c = CASES[k]
    if k not in go_names:
        pytest.fail(f"no Go function for {c.name} in tests/conformance/go")
    go = conform.run_go_case(go_bins[c.mode], go_names[k], c)
    found, runs, complete = conform.explore(c)
    assert complete, f"gosim's search of {c.name} did not finish in {runs} runs: lower its bound"
    sim = set(found)
    agree = set(go) <= c.expect and sim == c.expect
    detail = (f"{c.name}: Go showed {dict(sorted(go.items()))}, declared {sorted(c.expect)}, "
              f"gosim reached {sorted(sim)} in {runs} schedules")
    if c.differs:
        assert not agree, f"documented difference gone, remove differs= and the docs entry: {detail}"
        return
    assert agree, detail
