"""docs/HARNESSES.md, followed literally: generate the port from a Go snippet (fuzzfarm port), fuzz
it and replay the crash; then scaffold, install, test, fuzz standalone, demo farm,
replay (exit 1, fixed exit 0), edit the port (hash changes, replay warns). See guide_runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import guide_runner as G  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]
# Short triage: the guide checks the path a new harness takes (its outputs name no verify count
# or proof); the triage verdicts have their own tests (tests/e2e/test_farm_e2e.py, tests/collector).
FAST_ENV = {"FUZZFARM_MINIMIZE_BUDGET_S": "5", "FUZZFARM_TIMEOUT_S": "10", "FUZZFARM_VERIFY_RUNS": "3",
            "FUZZFARM_PROVE_BUDGET_S": "4"}


def test_every_block_of_the_guide_is_run_or_checked():
    bs = G.blocks()
    assert G.check_markers(bs) == []
    assert sum(b.lang == "sh" for b in bs) >= 6 and any(b.marker == "farm" for b in bs)


def _follow(tmp_path, farm_url: str | None):
    from fuzzfarm import harness as H
    from fuzzfarm.farm.embedded import redis_server_binary
    if redis_server_binary() is None:
        pytest.skip("redis-server is not installed; scripts/setup installs it")
    if {"tracker", "tracker-gen"} & set(H.registry()):
        pytest.fail("a harness named 'tracker' or 'tracker-gen' is installed in the test venv (the guide followed before it made a "
                    "venv of its own?); remove it with `.venv/bin/pip uninstall -y fuzzfarm-tracker fuzzfarm-tracker-gen`, then rerun")
    work = tmp_path / "work"
    work.mkdir()
    # no $FUZZFARM_REDIS_URL in the shell: sections 1 to 8 are what a user without a farm runs (the
    # demo on the local farm); run_guide sets it for the farm blocks (section 9) only
    env = G.user_env(str(tmp_path), **FAST_ENV)
    try:
        results = G.run_guide(str(work), env, farm_url=farm_url)
    finally:  # the guide stops its local farm itself; if a block failed before that, stop it here
        subprocess.run(["fuzzfarm", "down"], env=env, capture_output=True, timeout=120)
    return work, results



def test_the_farm_url_is_in_the_farm_blocks_only(tmp_path):
    """The runner gives the guide's shell what its reader has: no farm URL before section 9 (so the
    demo of section 7 runs on the local farm, as shown), the farm's URL in the ``sh farm`` blocks.
    A URL leaked into the whole session made the slow on-a-farm run miss section 7's line."""
    fence = "`" * 3
    guide = tmp_path / "GUIDE.md"
    guide.write_text("\n".join([
        f"{fence}sh", 'echo "before: ${FUZZFARM_REDIS_URL:-none}"', fence,
        f"{fence}text expect", "before: none", fence,
        f"{fence}sh farm", 'echo "farm: $FUZZFARM_REDIS_URL"', fence,
        f"{fence}text expect", "farm: redis://127.0.0.1:1/0", fence,
        f"{fence}sh", 'echo "after: ${FUZZFARM_REDIS_URL:-none}"', fence,
        f"{fence}text expect", "after: none", fence, ""]))
    env = G.user_env(str(tmp_path))
    url = "redis://127.0.0.1:1/0"  # never contacted: the blocks only echo it
    outs = [out.splitlines()[0] for _, out in G.run_guide(str(tmp_path), env, farm_url=url, guide=str(guide))]
    assert outs == ["before: none", "farm: redis://127.0.0.1:1/0", "after: none"]
    # without a farm the farm block is not run, and the others are as before
    outs = [out.splitlines()[0] for _, out in G.run_guide(str(tmp_path), env, farm_url=None, guide=str(guide))]
    assert outs == ["before: none", "after: none"]

GUARDS = ("tests/engine/test_fuzz_child_imports.py::test_atheris_child_instruments_only_our_code",
          "tests/docs/test_harness_guide.py::test_the_guide_works_as_written")


def _suite(*tests: str) -> subprocess.CompletedProcess:
    """The project's own tests, as scripts/test runs them (the test venv's python, the repo's tests)."""
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests], cwd=G.REPO,
                          capture_output=True, text=True, timeout=900)


def test_the_guide_works_as_written(tmp_path):
    work, results = _follow(tmp_path, None)
    # the short way first (section 2): a Go snippet, `fuzzfarm port`, the fuzzer's crash replayed
    # buggy (exit 1, at the Go line) and fixed (exit 0), with no Python written
    assert (work / "tracker-gen" / "tracker_gen_port" / "buggy.py").is_file()
    assert list((work / "gen-crashes").glob("crash-*"))
    assert any("goroutine panic at example.com/tracker.(*Tracker).Stop (tracker.go:21)" in out for _, out in results)
    # then the hand port (sections 3 to 8)
    assert (work / "tracker" / "tracker_harness" / "port.py").is_file()
    assert any("fails as recorded" in out for _, out in results)
    # The guide installed the plugin into a venv of its own: fuzzfarm's own installation (the test
    # venv) does not see it, so its suite is as before: the name is still free for the next
    # `fuzzfarm new tracker`, and the fuzz child guard passes (the full rerun of both guards is
    # test_the_suite_stays_green_after_the_guide, slow).
    listed = subprocess.run([sys.executable, "-m", "fuzzfarm.cli", "harnesses", "--json"], capture_output=True,
                            text=True, timeout=120)
    assert not {"tracker", "tracker-gen"} & {h["name"] for h in json.loads(listed.stdout)}
    assert subprocess.run([sys.executable, "-m", "fuzzfarm.cli", "new", "tracker", "-o", str(tmp_path / "again")],
                          capture_output=True, timeout=120).returncode == 0
    guard = _suite(GUARDS[0])
    assert guard.returncode == 0, guard.stdout[-3000:]


@pytest.mark.slow
def test_the_suite_stays_green_after_the_guide(tmp_path):
    """Follow the guide literally, then run the suite's guards that broke when the guide installed
    into fuzzfarm's own venv (the guide itself again, and the fuzz child's instrumentation)."""
    _follow(tmp_path, None)
    guards = _suite(*GUARDS)
    assert guards.returncode == 0 and "2 passed" in guards.stdout, guards.stdout[-3000:]


def test_the_guide_excerpts_are_what_fuzzfarm_new_writes(tmp_path):
    from fuzzfarm.cli.new import scaffold
    files = scaffold("tracker-copy", str(tmp_path / "pkg"))  # not installed: the name is free
    pkg = tmp_path / "pkg"
    renamed = tmp_path / "as-tracker"
    for f in files:  # the same templates under the guide's name
        rel = os.path.relpath(f, pkg).replace("tracker_copy_harness", "tracker_harness")
        dest = renamed / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        text = open(f).read().replace("tracker_copy_harness", "tracker_harness")
        dest.write_text(text.replace("tracker-copy", "tracker"))
    assert G.check_excerpts(str(renamed)) >= 4


@pytest.mark.slow
def test_the_guide_works_as_written_on_a_farm(tmp_path, redis_server):
    work, results = _follow(tmp_path, redis_server.url)
    assert (work / "repro-tracker" / "repro.json").is_file()
