"""The ``examples`` harness reads its pin (``FUZZFARM_EXAMPLE``) at every run, not once when a
process first imports it: a process running many inputs (a farm worker, a test session) ran
every later ``examples`` input as whatever case was pinned at that import (the order-dependent
failure of tests/collector/test_minimize_starvation.py's HC-20 test after a test that loaded the
harness under ``FUZZFARM_EXAMPLE=hc03``)."""

from __future__ import annotations

import sys

import pytest

from fuzzfarm.harness.runone import outcome

HC20 = bytes([0] * 40 + [17])  # the last byte picks the case: CASE_NAMES[17] is HC-20


@pytest.fixture
def fresh_examples(monkeypatch):
    """``harnesses.examples_race`` imported anew in this test, and dropped again after it."""
    sys.modules.pop("harnesses.examples_race", None)
    yield
    sys.modules.pop("harnesses.examples_race", None)


def test_a_pin_set_at_import_does_not_outlive_the_variable(fresh_examples, monkeypatch):
    monkeypatch.setenv("FUZZFARM_EXAMPLE", "hc03")
    assert outcome("examples", "buggy", HC20)["scenario"].startswith("HC-03")  # imported pinned
    monkeypatch.delenv("FUZZFARM_EXAMPLE")
    assert outcome("examples", "buggy", HC20)["scenario"].startswith("HC-20")
    monkeypatch.setenv("FUZZFARM_EXAMPLE", "hc09")
    assert outcome("examples", "buggy", HC20)["scenario"].startswith("HC-09")


def test_a_bad_pin_set_after_import_is_a_harness_error(fresh_examples, monkeypatch):
    """As a bad ``FUZZFARM_RACE``: the run is a ``harness error`` saying what to fix."""
    assert outcome("examples", "buggy", HC20)["scenario"].startswith("HC-20")
    monkeypatch.setenv("FUZZFARM_EXAMPLE", "hc99")
    o = outcome("examples", "buggy", HC20)
    assert o["kind"] == "harness error" and o["message"].startswith("FUZZFARM_EXAMPLE: unknown example 'hc99'; known: hc01")
