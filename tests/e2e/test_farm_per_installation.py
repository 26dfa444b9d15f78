"""``fuzzfarm up`` farms are per installation, not per user: two installations of one user (the
test venv, standing for one checkout, and a venv made with ``fuzzfarm venv`` holding a plugin,
standing for another) each get their own farm (name, data directory, Redis port, processes)
under the same data directory; each installation's commands talk to its own farm only (B's
campaign is not in A's status, A cannot run B's harness), ``down`` in one leaves the other
running, and the CLI names the farm it talks to. ``$FUZZFARM_FARM`` names a farm instead."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "docs"))
import guide_runner as G  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(400)]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_two_installations_two_farms(tmp_path):
    from farm_fixtures import _need_redis
    _need_redis()
    env = G.venv_env("/nonexistent", PIP_NO_INDEX="1", XDG_DATA_HOME=str(tmp_path / "data"))
    env.pop("VIRTUAL_ENV")
    env["PATH"] = "/usr/bin:/bin"
    a = os.path.join(os.path.dirname(sys.executable), "fuzzfarm")
    b_bin = G.layered_venv(str(tmp_path / "b-env"))
    b = os.path.join(b_bin, "fuzzfarm")

    def ff(exe, *args, timeout=180, extra=None):
        return subprocess.run([exe, *args], env={**env, **(extra or {})}, cwd=tmp_path, capture_output=True,
                              text=True, timeout=timeout)

    assert ff(b, "new", "tracker", "-o", "tracker").returncode == 0
    inst = subprocess.run([os.path.join(b_bin, "pip"), "install", "-q", "--no-deps", "-e", "tracker"], env=env,
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert inst.returncode == 0, inst.stderr[-2000:]
    # no farm yet: a command says which farm it looked for
    p = ff(a, "status")
    assert p.returncode == 2 and "no farm to talk to: farm '" in p.stderr and "fuzzfarm up" in p.stderr, p.stderr
    ups = {}
    try:
        for name, exe in (("a", a), ("b", b)):
            p = ff(exe, "up", "--json", "-c", "1", "--collect-concurrency", "1")
            assert p.returncode == 0, p.stderr
            ups[name] = json.loads(p.stdout)
        A, B = ups["a"], ups["b"]
        assert A["farm"] != B["farm"], (A, B)
        assert B["farm"].startswith("b-env-") and A["dir"] != B["dir"] and A["url"] != B["url"], (A, B)
        assert os.path.dirname(A["dir"]) == os.path.dirname(B["dir"]) == str(tmp_path / "data" / "fuzzfarm" / "farms")
        assert f"farm {B['farm']!r}" in ff(b, "up").stdout  # up says which farm (already running)
        # each installation talks to its own: B's campaign is B's only; A's workers cannot run tracker
        p = ff(b, "submit", "tracker", "--duration", "2", "--json")
        assert p.returncode == 0, p.stderr
        cid = json.loads(p.stdout)["campaign"]
        assert cid in {c["id"] for c in json.loads(ff(b, "status", "--json").stdout)}
        assert cid not in {c["id"] for c in json.loads(ff(a, "status", "--json").stdout)}
        assert "tracker" not in {h["name"] for h in json.loads(ff(a, "harnesses", "--json").stdout)}
        assert ff(a, "submit", "tracker", "--duration", "2").returncode == 2
        # down in A stops A's processes only
        a_pids = [A["supervisor_pid"], A["redis_pid"], *(w["pid"] for w in A["workers"])]
        b_pids = [B["supervisor_pid"], B["redis_pid"], *(w["pid"] for w in B["workers"])]
        p = ff(a, "down")
        assert p.returncode == 0 and f"farm {A['farm']!r}" in p.stdout, p.stdout
        assert not any(_alive(pid) for pid in a_pids)
        assert all(_alive(pid) for pid in b_pids)
        assert cid in {c["id"] for c in json.loads(ff(b, "status", "--json").stdout)}  # B still answers
        assert "no local farm is running" in ff(a, "down").stdout
        # a named farm: $FUZZFARM_FARM picks it (a bad name is one line, exit 2)
        assert ff(a, "down", "--json", extra={"FUZZFARM_FARM": "shared"}).stdout.count('"farm": "shared"') == 1
        bad = ff(a, "status", extra={"FUZZFARM_FARM": "../x"})
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "FUZZFARM_FARM" in bad.stderr, bad.stderr
    finally:
        for exe in (a, b):
            ff(exe, "down")
