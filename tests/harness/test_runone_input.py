"""``python -m fuzzfarm.runone HARNESS VARIANT INPUT``: an input that is no input file (a device
such as /dev/zero, a FIFO, more than MAX_INPUT_BYTES) is one line and exit 2, read without
waiting and never whole (it read /dev/zero until memory ran out)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest

from fuzzfarm.harness import MAX_INPUT_BYTES


def _runone(path: str) -> subprocess.CompletedProcess:
    def limit():  # without the fix /dev/zero is read until this, not the machine, runs out
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    return subprocess.run([sys.executable, "-m", "fuzzfarm.runone", "checker", "buggy", path], capture_output=True,
                          text=True, timeout=120, preexec_fn=limit)


def _one_line(p: subprocess.CompletedProcess, *needles: str) -> None:
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1 and p.stdout == "", (p.returncode, p.stdout, p.stderr[-2000:])
    assert lines[0].startswith("fuzzfarm: ") and all(n in lines[0] for n in needles), lines[0]


@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_a_device_or_a_fifo_is_refused_at_once(tmp_path, kind):
    path = "/dev/zero"
    if kind == "fifo":  # nobody writes to it: opening it must not wait for a writer
        path = str(tmp_path / "fifo")
        os.mkfifo(path)
    _one_line(_runone(path), f"the input {path!r} is not a regular file", "give the input file itself")


def test_an_input_over_the_limit_is_refused(tmp_path):
    big = tmp_path / "big"
    big.write_bytes(b"\x01" * (MAX_INPUT_BYTES + 1))
    _one_line(_runone(str(big)), f"holds more than {MAX_INPUT_BYTES} bytes")


def test_an_input_at_the_limit_runs(tmp_path):
    edge = tmp_path / "edge"
    edge.write_bytes(b"\x00" * MAX_INPUT_BYTES)
    p = _runone(str(edge))
    assert p.returncode in (0, 1) and '"input_size": %d' % MAX_INPUT_BYTES in p.stdout, p.stderr[-2000:]
