"""The engine and collector tests fuzz a toy harness that is never registered (see
toy_harness.py); child processes find it through ``Target.pythonpath``."""

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)


@pytest.fixture
def toy():
    from fuzzfarm.harness import Target

    return Target("toy", "toy_harness")


@pytest.fixture
def broken():
    from fuzzfarm.harness import Target

    return Target("broken", "broken_harness")
