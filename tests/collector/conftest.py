"""Collector tests use the toy harness of tests/engine (never registered)."""

import os
import sys

import pytest

ENGINE_TESTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "engine")
if ENGINE_TESTS not in sys.path:
    sys.path.insert(0, ENGINE_TESTS)

@pytest.fixture
def toy():
    from fuzzfarm.harness import Target

    return Target("toy", "toy_harness")
