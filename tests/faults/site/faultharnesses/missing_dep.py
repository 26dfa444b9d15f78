#!/usr/bin/env python3
"""ff-nodep (test only): a harness whose dependency is not installed."""

import atheris

import fuzzfarm_faulttest_no_such_module  # noqa: F401

from fuzzfarm.harness import atheris_main

NAME = "ff-nodep"
VARIANTS = ("buggy",)
DESCRIPTION = "test only: imports a module that does not exist"


def execute(data, variant, *, trace=False, log_schedule=False):
    raise AssertionError("unreachable")


def TestOneInput(data):
    pass


if __name__ == "__main__":
    atheris_main(TestOneInput, __file__)
