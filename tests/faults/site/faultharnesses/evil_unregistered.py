"""Not a registered harness (test only): importing or running it creates a marker file, so a
test can prove that no worker ever ran it although a job named it."""

import os

MARKER = f"/tmp/fuzzfarm-evil-harness-ran-{os.getuid()}"
with open(MARKER, "w") as f:
    f.write(f"pid {os.getpid()}\n")

NAME = "evil"
VARIANTS = ("buggy",)


def execute(data, variant, *, trace=False, log_schedule=False):
    return None


def TestOneInput(data):
    pass
