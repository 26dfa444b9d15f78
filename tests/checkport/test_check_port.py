"""``fuzzfarm check-port``: every shipped port's citations agree with its Go twin, and the
checker says, one line each with the Go file:line, when a citation is wrong.

The wrong ports are small fake plugin harnesses written into a temporary directory and
registered the way an installed plugin is (a ``.dist-info`` with the entry point on the
path), each citing the real checker twin (gotwins/checker) once wrongly: a line outside the
function, a function that is not there, a file that is not there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from fuzzfarm.portcheck.check import TWINS_FILE, load_twins

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECKER_TWIN = os.path.join(ROOT, "gotwins", "checker")


def fuzzfarm(*args: str, env: dict | None = None, python: str = sys.executable) -> subprocess.CompletedProcess:
    return subprocess.run([python, "-m", "fuzzfarm.cli", *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env={**os.environ, **(env or {})})


@pytest.mark.parametrize("harness", sorted(load_twins()))
def test_shipped_ports_agree_with_their_twins(go, harness):
    """CI's check: every harness listed in gotwins/TWINS.toml (the seeds here; the examples'
    twins join by being listed) passes check-port against its twins, every port module with
    citations having one."""
    p = fuzzfarm("check-port", harness)
    assert p.returncode == 0, p.stdout + p.stderr
    summary = p.stdout.strip().splitlines()
    assert len(summary) == 1 and summary[0].endswith(": all agree"), p.stdout
    assert "not checked" not in summary[0], f"a port module of {harness} has no twin: {summary[0]}"
    checked = int(summary[0].split(": ", 1)[1].split()[0])
    assert checked > 20, summary[0]
    # it is not silent meanwhile: on stderr, one line per twin as its check starts (it was
    # silent for about a minute on the examples harness)
    twins = summary[0].split(" against ", 1)[1].split(": all agree")[0].split(", ")
    progress = p.stderr.strip().splitlines()
    assert [ln.split(": ", 1)[1].split(" (", 1)[0] for ln in progress] == twins, p.stderr
    assert all(f"({i}/{len(twins)}): " in ln for i, ln in enumerate(progress, 1)), p.stderr


# -- fake plugin ports, each with one wrong citation among right ones --------------------------

_HARNESS = '''\
"""A fake plugin harness for tests/checkport: imports its port, never runs."""
from {pkg} import port  # noqa: F401

NAME = "{name}"
VARIANTS = ("buggy", "fixed")


def execute(data, variant, **kw):
    raise NotImplementedError


def TestOneInput(data):
    raise NotImplementedError
'''

_PORT_HEAD = '''\
from fuzzfarm.gosim import Mutex, go_func


class ObjectChecker:
    @go_func("common.newObjectChecker", "wait_for_controlled_pods.go:697")
    def __init__(self):
        self.lock = Mutex("o.lock")
        self.cancel = None

    @go_func("objectChecker.SetCancel", "wait_for_controlled_pods.go:704")
    def set_cancel(self, cancel):
        with self.lock:  # :705
            self.cancel = cancel  # :707
'''

# name -> (the wrong method, the line check-port must print for it)
WRONG = {
    "wrong-line": ('''
    @go_func("objectChecker.Stop", "wait_for_controlled_pods.go:730")
    def stop(self):
        with self.lock:
            self.cancel()
''', "wait_for_controlled_pods.go:730: line 730 is outside objectChecker.Stop (wait_for_controlled_pods.go:710-714)"),
    "wrong-function": ('''
    @go_func("objectChecker.Start", "wait_for_controlled_pods.go:710")
    def stop(self):
        with self.lock:
            self.cancel()
''', "wait_for_controlled_pods.go:710: no function objectChecker.Start in wait_for_controlled_pods.go; "
     "line 710 is in objectChecker.Stop (wait_for_controlled_pods.go:710-714)"),
    "missing-file": ('''
    @go_func("objectChecker.Stop", "object_checker.go:710")
    def stop(self):
        with self.lock:
            self.cancel()
''', "object_checker.go:710: no Go file object_checker.go in the twin"),
    "wrong-site": ('''
    @go_func("objectChecker.Stop", "wait_for_controlled_pods.go:710")
    def stop(self):
        with self.lock:
            self.cancel()  # :720
''', "wait_for_controlled_pods.go:720: the '# :720' site is outside objectChecker.Stop "
     "(wait_for_controlled_pods.go:710-714)"),
    "right": ('''
    @go_func("objectChecker.Stop", "wait_for_controlled_pods.go:710")
    def stop(self):
        with self.lock:
            self.cancel()  # :713
''', None),
}


@pytest.fixture(scope="module")
def plugins(tmp_path_factory):
    """A directory holding one registered fake plugin per WRONG entry; the env to see them."""
    root = tmp_path_factory.mktemp("fakeports")
    entry = ["[fuzzfarm.harnesses]"]
    for name, (method, _) in WRONG.items():
        pkg = "fakeport_" + name.replace("-", "_")
        os.makedirs(root / pkg)
        (root / pkg / "__init__.py").write_text("")
        (root / pkg / "port.py").write_text(_PORT_HEAD + textwrap.indent(textwrap.dedent(method), "    "))
        (root / pkg / "harness.py").write_text(_HARNESS.format(pkg=pkg, name=name))
        entry.append(f"fake-{name} = {pkg}.harness")
    dist = root / "fuzzfarm_fakeports-0.1.0.dist-info"
    os.makedirs(dist)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fuzzfarm-fakeports\nVersion: 0.1.0\n")
    (dist / "entry_points.txt").write_text("\n".join(entry) + "\n")
    return {"PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}


@pytest.mark.parametrize("name", [n for n, (_, want) in WRONG.items() if want is not None])
def test_a_wrong_citation_is_one_line_with_its_go_file_and_line(go, plugins, name):
    p = fuzzfarm("check-port", f"fake-{name}", "--go-src", CHECKER_TWIN, env=plugins)
    assert p.returncode == 1, p.stdout + p.stderr
    lines = p.stdout.strip().splitlines()
    want = WRONG[name][1]
    assert len(lines) == 2, p.stdout  # the mismatch, then the summary
    assert lines[0].startswith(want), f"\n{lines[0]}\nshould start with\n{want}"
    assert lines[0].endswith(f"/port.py:{lines[0].rsplit(':', 1)[1]}") and "ObjectChecker.stop at " in lines[0]
    assert lines[1].endswith(": 1 mismatch(es)"), lines[1]


def test_right_citations_of_a_plugin_pass(go, plugins):
    """The same fake port with its citations right: exit 0, every citation counted."""
    p = fuzzfarm("check-port", "fake-right", "--go-src", CHECKER_TWIN, env=plugins)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.strip() == (f"check-port fake-right: 6 citations checked (3 go_func declarations, 3 '# :N' "
                                f"sites) in 1 modules against gotwins/checker: all agree")


def test_a_changed_twin_is_caught_on_the_real_port(go, tmp_path):
    """The checker port against a copy of its twin where objectChecker.Stop is said to stand for
    other lines and checker_map.go's functions for another file: each citation of them is
    reported, the rest agree."""
    twin = tmp_path / "checker"
    shutil.copytree(CHECKER_TWIN, twin)
    src = (twin / "wait_for_controlled_pods.go").read_text()
    src = src.replace("wait_for_controlled_pods.go:710-714", "wait_for_controlled_pods.go:730-734")
    (twin / "wait_for_controlled_pods.go").write_text(src)
    cm = (twin / "checker_map.go").read_text()
    (twin / "checker_map.go").write_text(cm.replace("checker/checker_map.go:", "checker/checkermap.go:"))
    p = fuzzfarm("check-port", "checker", "--go-src", str(twin))
    assert p.returncode == 1, p.stdout + p.stderr
    lines = p.stdout.strip().splitlines()
    mism = lines[:-1]
    assert any(m.startswith("wait_for_controlled_pods.go:710: line 710 is outside objectChecker.Stop "
                            "(wait_for_controlled_pods.go:730-734)") for m in mism), p.stdout
    assert sorted(m.split(":")[0] for m in mism) == ["checker_map.go"] * 4 + ["wait_for_controlled_pods.go"], p.stdout
    assert lines[-1].endswith(": 5 mismatch(es)")


# -- bad input: one line, exit 2 ------------------------------------------------------------------

def _one_error_line(p: subprocess.CompletedProcess, *words: str) -> None:
    assert p.returncode == 2, p.stdout + p.stderr
    err = p.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fuzzfarm: error: "), p.stderr
    assert p.stdout == ""
    for w in words:
        assert w in err[0], err[0]


def test_unknown_harness_is_bad_input():
    _one_error_line(fuzzfarm("check-port", "no-such-harness"), "unknown harness 'no-such-harness'")


def test_missing_directory_is_bad_input(tmp_path):
    _one_error_line(fuzzfarm("check-port", "checker", "--go-src", str(tmp_path / "nope")), "does not exist")


def test_a_file_for_go_src_is_bad_input_said_as_a_file(tmp_path):
    (tmp_path / "a.go").write_text("package a\n")
    _one_error_line(fuzzfarm("check-port", "checker", "--go-src", str(tmp_path / "a.go")), "is a file, not a directory")


def test_go_src_holding_none_of_the_cited_files_is_the_wrong_directory_not_a_wrong_port(go):
    """Unrelated Go (the conformance programs) once gave 58 'no Go file' lines and exit 1, blaming
    the port; it is one line saying the directory is wrong, exit 2."""
    _one_error_line(fuzzfarm("check-port", "checker", "--go-src", os.path.join(ROOT, "tests", "conformance", "go")),
                    "none of the Go files the port cites", "is under")


def test_harness_without_a_listed_twin_is_bad_input(plugins):
    _one_error_line(fuzzfarm("check-port", "fake-right", env=plugins), "no twin of harness 'fake-right'",
                    "--go-src")


def test_go_missing_is_bad_input(tmp_path):
    """An interpreter with no go beside it and none on PATH (the venv's python, reached through
    a link in an empty directory, with the venv's packages on PYTHONPATH)."""
    import site
    link = tmp_path / "python3"
    os.symlink(os.path.realpath(sys.executable), link)
    env = {"PATH": str(tmp_path), "PYTHONPATH": os.pathsep.join([ROOT] + site.getsitepackages())}
    p = subprocess.run([str(link), "-m", "fuzzfarm.cli", "check-port", "checker"], capture_output=True, text=True,
                       timeout=300, cwd=ROOT, env=env)
    _one_error_line(p, "Go is not installed")


def test_module_narrows_the_check(go):
    """--module keeps only the port modules under a dotted name: prow's alone; a name no port
    module has is bad input, not a pass."""
    whole = fuzzfarm("check-port", "cluster-builder")
    part = fuzzfarm("check-port", "cluster-builder", "--module", "fuzzfarm.ports.prow")
    assert whole.returncode == 0 and part.returncode == 0, whole.stderr + part.stderr
    count = lambda p: int(p.stdout.split(": ", 1)[1].split()[0])  # noqa: E731
    assert 0 < count(part) < count(whole), (part.stdout, whole.stdout)
    _one_error_line(fuzzfarm("check-port", "cluster-builder", "--module", "fuzzfarm.ports.prowl"),
                    "no go_func citations under fuzzfarm.ports.prowl")
