"""``fuzzfarm venv DIR`` (fuzzfarm/cli/venv.py): bad input is one line and exit 2, nothing made;
what it makes runs this fuzzfarm and installs into itself (the harness guide, tests/docs, follows
it with a real ``pip install -e``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys


def _ff(*args, cwd):
    return subprocess.run([sys.executable, "-m", "fuzzfarm.cli", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120)


def test_a_non_empty_directory_is_refused_in_one_line(tmp_path):
    (tmp_path / "env").mkdir()
    (tmp_path / "env" / "keep.txt").write_text("mine")
    p = _ff("venv", "env", cwd=tmp_path)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "not an empty directory" in p.stderr, p.stderr
    assert os.listdir(tmp_path / "env") == ["keep.txt"]


def test_the_venv_runs_this_fuzzfarm_and_its_pip_installs_into_it(tmp_path):
    p = _ff("venv", "env", "--json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    made = json.loads(p.stdout)
    assert made["base"] == sys.prefix
    py = os.path.join(made["bin"], "python")
    code = "import sys, fuzzfarm, pip; print(sys.prefix); print(pip.__file__)"
    prefix, _ = subprocess.run([py, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert prefix == str(tmp_path / "env")  # pip run by this python installs under this prefix
    listed = subprocess.run([os.path.join(made["bin"], "fuzzfarm"), "harnesses", "--json"], capture_output=True,
                            text=True, timeout=120)
    assert {"checker", "cluster-builder"} <= {h["name"] for h in json.loads(listed.stdout)}


def test_an_empty_or_unwritable_dir_is_one_line_and_nothing_is_made(tmp_path):
    """`venv ""` once built a venv into the (non-empty) working directory; a DIR under a file,
    or a dangling link, raised a traceback."""
    (tmp_path / "keep.txt").write_text("mine")
    (tmp_path / "afile").write_text("")
    os.symlink(str(tmp_path / "nowhere"), tmp_path / "dangling")
    for d in ("", "afile/sub", "dangling"):
        p = _ff("venv", d, cwd=tmp_path)
        assert p.returncode == 2 and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr, (d, p.stderr)
    assert sorted(os.listdir(tmp_path)) == ["afile", "dangling", "keep.txt"]
