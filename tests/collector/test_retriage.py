"""``fuzzfarm replay --retriage DIR`` (fuzzfarm/collector/retriage.py): a reproducer recorded under
an old harness hash is triaged again under the installed code. A test plugin (its own site on
PYTHONPATH, registered by its own entry point) is recorded, then edited three ways, as a user
edits a port: a change that keeps the bug (the new reproducer names the new hash, fails as
recorded, is minimized, verified and fix-checked); a fix of the bug (no longer fails, nothing
written); a change that turns it into another failure (fails differently). Each through the real
CLI in a fresh process, as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from fuzzfarm.collector import build_artifact, load_artifact, replay, write_artifact
from fuzzfarm.harness.target import resolve

pytestmark = pytest.mark.timeout(600)

NAME = "ff-retriage"

HARNESS = '''
import atheris  # noqa: F401

from fuzzfarm.harness import execute_scenario

NAME = "ff-retriage"
VARIANTS = ("buggy", "fixed")
DESCRIPTION = "test only: a shared map written by two goroutines"
EDIT = "{edit}"


def execute(data, variant, *, trace=False, log_schedule=False):
    from fuzzfarm import gosim

    def main():
        m = gosim.Map(name="shared")
        mu = gosim.Mutex(name="mu")
        wg = gosim.WaitGroup(name="wg")
        wg.add(2)

        def writer(k):
            if EDIT == "panic":
                raise KeyError(f"writer {{k}}: the edit looks up a key that is not there")
            locked = variant == "fixed" or EDIT == "fix"
            if locked:
                mu.lock()
            m[k] = 1
            m[k + 100] = 2
            if locked:
                mu.unlock()
            wg.done()

        gosim.go(writer, 1)
        gosim.go(writer, 2)
        wg.wait()

    return execute_scenario(main, data, 0, "two writers", trace=trace, log_schedule=log_schedule)


def TestOneInput(data):
    execute(data, "buggy").report.raise_failure()
'''

BUDGETS = {"FUZZFARM_MINIMIZE_BUDGET_S": "10", "FUZZFARM_VERIFY_RUNS": "3", "FUZZFARM_FIX_RANDOM_RUNS": "5",
           "FUZZFARM_FIX_PCT_RUNS": "5", "FUZZFARM_FIX_BUDGET_S": "10"}


def _write_plugin(site: str, edit: str) -> None:
    pkg = os.path.join(site, "rtharness")
    os.makedirs(pkg, exist_ok=True)
    open(os.path.join(pkg, "__init__.py"), "w").close()
    with open(os.path.join(pkg, "harness.py"), "w") as f:
        f.write(textwrap.dedent(HARNESS.format(edit=edit)))
    dist = os.path.join(site, "ff_retriage-0.0.0.dist-info")
    os.makedirs(dist, exist_ok=True)
    with open(os.path.join(dist, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: ff-retriage\nVersion: 0.0.0\n")
    with open(os.path.join(dist, "entry_points.txt"), "w") as f:
        f.write(f"[fuzzfarm.harnesses]\n{NAME} = rtharness.harness\n")


@pytest.fixture
def recorded(tmp_path, monkeypatch):
    """The plugin as first written, and a reproducer of its map race recorded with its hash."""
    site = str(tmp_path / "site")
    _write_plugin(site, "none")
    monkeypatch.syspath_prepend(site)
    monkeypatch.setenv("PYTHONPATH", site)
    for k, v in BUDGETS.items():
        monkeypatch.setenv(k, v)
    from fuzzfarm import harness as H
    H.refresh_installed()
    target = resolve(NAME)
    for n in range(200):  # an input found the long way: 64 schedule bytes, room to minimize
        data = bytes((n * 31 + i * 7) % 256 for i in range(64))
        out = replay(target, "buggy", data, trace=True)
        if out["failed"]:
            break
    assert out["kind"] == "concurrent map writes", out
    old_hash = H.get(NAME).source_hash()
    files = build_artifact(bucket={"id": "b-old", "harness": NAME, "variant": "buggy"}, original=data,
                           minimized=data, outcome=out, harness_hash=old_hash, version="0")
    repro = str(tmp_path / "repro")
    write_artifact(files, repro)
    return {"site": site, "dir": repro, "old_hash": old_hash, "signature": out["signature"], "input": data}


def _retriage(path: str) -> tuple[int, dict]:
    p = subprocess.run([sys.executable, "-m", "fuzzfarm.cli", "replay", "--retriage", path, "--json"],
                       capture_output=True, text=True, timeout=500)
    assert p.returncode in (0, 1, 3), p.stderr
    return p.returncode, json.loads(p.stdout)


def test_an_edit_that_keeps_the_bug_gives_a_new_reproducer_under_the_new_hash(recorded):
    _write_plugin(recorded["site"], "comment-only edit")  # the source changed: a new hash
    code, res = _retriage(recorded["dir"])
    assert (code, res["verdict"]) == (1, "fails as recorded"), res
    assert res["harness_hash"] != recorded["old_hash"] == res["recorded_harness_hash"]
    assert res["dir"] == f"{recorded['dir']}-{res['harness_hash'][:12]}" and res["signature"] == recorded["signature"]
    art = load_artifact(res["dir"])  # every sha256 checked
    assert art.repro["harness_hash"] == res["harness_hash"]
    assert art.repro["retriaged_from"]["harness_hash"] == recorded["old_hash"]
    assert art.repro["verify"] == [3, 3] and art.repro["reproducible"]
    assert art.repro["fix"]["verdict"] == "fixed" and "fix check:   fixed" in art.files["failure.txt"].decode()
    assert art.original == recorded["input"] and len(art.minimized) < len(recorded["input"])
    # the old reproducer is untouched, and the new one replays under this code without a warning
    assert load_artifact(recorded["dir"]).repro["harness_hash"] == recorded["old_hash"]
    p = subprocess.run([sys.executable, "-m", "fuzzfarm.cli", "replay", res["dir"], "--quiet"], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 1 and "may diverge" not in p.stderr, p.stderr
    assert "re-triaged under harness hash" in res["text"] and res["harness_hash"][:12] in res["text"]
    # a second re-triage under the same code would overwrite it: refused, one line, exit 2
    p = subprocess.run([sys.executable, "-m", "fuzzfarm.cli", "replay", "--retriage", recorded["dir"]],
                       capture_output=True, text=True, timeout=500)
    assert p.returncode == 2 and "is not empty" in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_retriage_with_variant_is_one_line_exit_2(recorded):
    p = subprocess.run([sys.executable, "-m", "fuzzfarm.cli", "replay", "--retriage", "--variant", "fixed",
                        recorded["dir"]], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "drop --variant" in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert sorted(os.listdir(os.path.dirname(recorded["dir"]))) == ["repro", "site"]


def test_an_edit_that_fixes_the_bug_no_longer_fails_and_writes_nothing(recorded):
    _write_plugin(recorded["site"], "fix")
    code, res = _retriage(recorded["dir"])
    assert (code, res["verdict"], res["dir"]) == (0, "no longer fails", None), res
    assert sorted(os.listdir(os.path.dirname(recorded["dir"]))) == ["repro", "site"]


def test_an_edit_that_changes_the_failure_fails_differently(recorded):
    _write_plugin(recorded["site"], "panic")
    code, res = _retriage(recorded["dir"])
    assert (code, res["verdict"]) == (3, "fails differently"), res
    assert res["signature"] != recorded["signature"]
    assert load_artifact(res["dir"]).repro["crash_type"].startswith("goroutine panic")
