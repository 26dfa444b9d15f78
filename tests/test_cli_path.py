"""Printed commands run as printed: ``fuzzfarm`` (and ``pytest``) bare only when the shell's PATH
finds this installation's, else its full path, and one line saying how to put scripts/setup's
link on PATH (fuzzfarm/cli/path.py). The real link and PATH of a throwaway HOME, no mocks."""

from __future__ import annotations

import os
import subprocess
import sys

from fuzzfarm.cli import path as cli_path

OWN = os.path.join(os.path.dirname(sys.executable), "fuzzfarm")


def _home(tmp_path, monkeypatch, *, link: bool, on_path: bool):
    home = tmp_path / "home"
    bindir = home / ".local" / "bin"
    bindir.mkdir(parents=True)
    if link:
        (bindir / "fuzzfarm").symlink_to(OWN)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_BIN_HOME", raising=False)
    monkeypatch.setenv("PATH", (f"{bindir}:" if on_path else "") + "/usr/bin:/bin")
    return bindir


def test_linked_and_on_path_prints_bare_names(tmp_path, monkeypatch):
    _home(tmp_path, monkeypatch, link=True, on_path=True)
    assert cli_path.typed("fuzzfarm") == "fuzzfarm"
    assert cli_path.path_advice() is None


def test_linked_but_not_on_path_prints_full_paths_and_the_export_line(tmp_path, monkeypatch):
    bindir = _home(tmp_path, monkeypatch, link=True, on_path=False)
    assert cli_path.typed("fuzzfarm") == OWN
    advice = cli_path.path_advice()
    assert f'export PATH="{bindir}:$PATH"' in advice
    # the line, run in a shell, makes the bare name this installation's fuzzfarm
    p = subprocess.run(["bash", "-c", advice.split("first run: ", 1)[1] + " && command -v fuzzfarm"],
                       capture_output=True, text=True, env={"HOME": os.environ["HOME"], "PATH": "/usr/bin:/bin"})
    assert os.path.realpath(p.stdout.strip()) == os.path.realpath(OWN), p.stderr


def test_another_fuzzfarm_on_path_is_not_taken_for_ours(tmp_path, monkeypatch):
    bindir = _home(tmp_path, monkeypatch, link=False, on_path=True)
    other = bindir / "fuzzfarm"
    other.write_text("#!/bin/sh\nexit 0\n")
    other.chmod(0o755)
    assert cli_path.typed("fuzzfarm") == OWN
    assert "scripts/setup" in cli_path.path_advice() and OWN in cli_path.path_advice()
