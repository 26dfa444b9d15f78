"""Plugin harnesses on real workers: installed after the workers started, refused with the
restart sentence when a worker cannot import it (and resubmitted after a restart), and
refused as version skew when the worker runs other code than the submitter.

Each worker and submitter runs in its own virtualenv layered over the test venv
(tests/docs/guide_runner.py). A plugin is installed as ``pip install -e`` installs a flat
package in its "static .pth" mode: a ``.dist-info`` holding the entry point and a ``.pth``
putting the package's directory on ``sys.path`` (written here directly: no pip run, so this
test stays fast; tests/docs/test_harness_guide.py runs the real pip).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "docs"))
import guide_runner as G  # noqa: E402

from fuzzfarm.farm.embedded import Worker  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]
ENV = {"FUZZFARM_MINIMIZE_BUDGET_S": "5", "FUZZFARM_TIMEOUT_S": "10"}


def install(bindir: str, name: str, src: str) -> None:
    """Register the scaffolded package at ``src`` (harness ``name``) in the venv of ``bindir``."""
    from fuzzfarm.cli.new import package_name
    sp, pkg = G.purelib(bindir), package_name(name)
    dist = os.path.join(sp, f"fuzzfarm_{pkg}-0.1.0.dist-info")
    os.makedirs(dist)
    with open(os.path.join(dist, "METADATA"), "w") as f:
        f.write(f"Metadata-Version: 2.1\nName: fuzzfarm-{name}\nVersion: 0.1.0\n")
    with open(os.path.join(dist, "entry_points.txt"), "w") as f:
        f.write(f"[fuzzfarm.harnesses]\n{name} = {pkg}.harness\n")
    with open(os.path.join(dist, "top_level.txt"), "w") as f:
        f.write(pkg + "\n")
    with open(os.path.join(sp, f"__editable__.fuzzfarm_{pkg}-0.1.0.pth"), "w") as f:
        f.write(os.path.abspath(src) + "\n")


class VenvWorker(Worker):
    """A farm worker (fuzz + collect) running on another venv's python."""

    def __init__(self, bindir: str, url: str, logfile: str):
        super().__init__(url, ["fuzz", "collect"], concurrency=2, env=ENV, logfile=logfile)
        self.bindir = bindir

    def command(self) -> list[str]:
        return [os.path.join(self.bindir, "python")] + super().command()[1:]


def fuzzfarm(bindir: str, url: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([os.path.join(bindir, "fuzzfarm"), *args], capture_output=True, text=True, timeout=timeout,
                          env=G.venv_env(bindir, FUZZFARM_REDIS_URL=url))


def harness_hash(bindir: str, name: str) -> str:
    p = fuzzfarm(bindir, "", "harnesses", "--json")
    assert p.returncode == 0, p.stderr
    return [h["source_hash"] for h in json.loads(p.stdout) if h["name"] == name][0]


def wait_final(st, cid: str, timeout: float = 240) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        s = st.campaign_summary(cid)
        if s and s["status"] in ("done", "failed"):
            return s
        time.sleep(0.3)
    raise AssertionError(f"campaign {cid} not final after {timeout} s: {st.campaign_summary(cid)}")


def submit(st, url: str, name: str, harness_hash: str) -> str:
    import fuzzfarm as ff
    from fuzzfarm.farm import configure
    from fuzzfarm.farm.tasks import submit_campaign
    configure(url)
    return submit_campaign(st, {"harness": name, "variant": "buggy", "strategy": "bytes", "jobs": 1, "duration_s": 2.0,
                                "harness_hash": harness_hash, "version": ff.__version__})


@pytest.fixture
def scaffolded(tmp_path):
    from fuzzfarm.cli.new import scaffold

    def make(name: str) -> str:
        d = str(tmp_path / name)
        scaffold(name, d)
        return d
    return make


def test_a_harness_installed_after_the_worker_started_runs(tmp_path, store, redis_server, scaffolded):
    bindir = G.layered_venv(str(tmp_path / "venv"))
    w = VenvWorker(bindir, redis_server.url, str(tmp_path / "worker.log")).start()
    try:
        w.wait_ready(90)
        install(bindir, "late", scaffolded("late"))  # now, while the worker runs
        p = fuzzfarm(bindir, redis_server.url, "submit", "late", "--duration", "3", "--wait", "--timeout", "240",
                     "--json")
        # exit 1: the campaign found a bucket (`submit --wait` says so by its status)
        assert p.returncode == 1, p.stderr[-3000:] + w.log_text()[-3000:]
        out = json.loads(p.stdout)
        assert out["summary"]["status"] == "done" and out["summary"]["execs"] > 0, out["summary"]
        assert any(b["kind"] == "goroutine panic" for b in out["buckets"]), out["buckets"]
    finally:
        w.stop()


@pytest.mark.slow  # two worker starts and two campaigns (~90 s); the refusal sentence is in tests/test_plugin_units.py
def test_a_worker_that_cannot_import_the_harness_says_restart_and_a_resubmit_works(tmp_path, store, redis_server,
                                                                                     scaffolded):
    bindir = G.layered_venv(str(tmp_path / "venv"))
    src = scaffolded("gone")
    install(bindir, "gone", src)
    good = harness_hash(bindir, "gone")
    w = VenvWorker(bindir, redis_server.url, str(tmp_path / "worker.log")).start()
    try:
        w.wait_ready(90)
        shutil.move(os.path.join(src, "gone_harness"), os.path.join(src, "moved"))  # registered, not importable
        cid = submit(store, redis_server.url, "gone", good)
        s = wait_final(store, cid)
        assert s["status"] == "failed" and s["execs"] == 0, s
        (error,) = set(s["errors"])
        assert "\n" not in error and "is not importable" in error and "restart the workers" in error, error
        assert error.endswith("then resubmit"), error
        shutil.move(os.path.join(src, "moved"), os.path.join(src, "gone_harness"))
    finally:
        w.stop()
    w = VenvWorker(bindir, redis_server.url, str(tmp_path / "worker2.log")).start()  # the restart
    try:
        w.wait_ready(90)
        s = wait_final(store, submit(store, redis_server.url, "gone", good))
        assert s["status"] == "done" and s["execs"] > 0, s
    finally:
        w.stop()


@pytest.mark.slow  # three venvs (~60 s); skew itself is refused in CI by tests/e2e/test_farm_e2e.py
def test_a_worker_with_the_old_port_refuses_the_new_submitter_as_version_skew(tmp_path, store, redis_server,
                                                                              scaffolded):
    old_src = scaffolded("skew")
    new_src = str(tmp_path / "new" / "skew")
    shutil.copytree(old_src, new_src)
    port = os.path.join(new_src, "skew_harness", "port.py")
    with open(port) as f:
        text = f.read()
    with open(port, "w") as f:
        f.write(text.replace("TICK = 1.0", "TICK = 2.0"))  # the submitter's port changed; the worker's did not
    worker_bin = G.layered_venv(str(tmp_path / "worker-venv"))
    submit_bin = G.layered_venv(str(tmp_path / "submit-venv"))
    install(worker_bin, "skew", old_src)
    install(submit_bin, "skew", new_src)
    assert harness_hash(worker_bin, "skew") != harness_hash(submit_bin, "skew")
    w = VenvWorker(worker_bin, redis_server.url, str(tmp_path / "worker.log")).start()
    try:
        w.wait_ready(90)
        p = fuzzfarm(submit_bin, redis_server.url, "submit", "skew", "--duration", "2", "--wait", "--timeout", "200")
        assert p.returncode == 2, p.stdout + p.stderr
        last = p.stderr.strip().splitlines()[-1]
        assert last.startswith("fuzzfarm: error: campaign") and "version skew: harness 'skew'" in last, p.stderr
    finally:
        w.stop()
