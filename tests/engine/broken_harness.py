"""A harness whose import fails (a missing dependency): the engine must report it clearly."""

import atheris

with atheris.instrument_imports():
    import fuzzfarm_no_such_dependency  # noqa: F401

from fuzzfarm.harness import atheris_main

NAME = "broken"
VARIANTS = ("buggy",)
DESCRIPTION = "fails to import"


def execute(data, variant, *, trace=False, log_schedule=False):
    raise AssertionError("unreachable")


def TestOneInput(data):
    pass


if __name__ == "__main__":
    atheris_main(TestOneInput, __file__)
