#!/usr/bin/env python3
"""ff-syntax (test only): a harness with a syntax error."""

NAME = "ff-syntax"
VARIANTS = ("buggy",)

def execute(data, variant, *, trace=False, log_schedule=False)
    return None
