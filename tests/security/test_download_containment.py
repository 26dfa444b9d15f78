"""``fuzzfarm download BUCKET -o DIR`` writes only inside DIR, whatever the bucket id or the file
names stored in Redis contain (Redis is shared by the whole fleet: treat what it holds as
untrusted). Without ``-o`` the default directory stays inside ``./fuzzfarm-out``. A symlink
planted in DIR under an artifact's name is replaced, never followed."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest

import faultlib
from fuzzfarm.farm import redis_url

GOOD = {"input.min": b"C", "repro.json": b"{}", "MANIFEST.json": b"{}"}


def _tree(root) -> dict[str, bytes | str]:
    out = {}
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(d, n)
            out[os.path.relpath(p, root)] = ("-> " + os.readlink(p)) if os.path.islink(p) else (
                open(p, "rb").read() if os.path.isfile(p) else "dir")
    return out


def _download(url: str, cwd, bucket: str, *out: str, subprocess_: bool = False) -> subprocess.CompletedProcess:
    """``fuzzfarm download`` in ``cwd``: the real command in a subprocess, or (faster) the same
    command run in this process through typer's test runner."""
    if subprocess_:
        env = {**os.environ, redis_url.ENV: url}
        return subprocess.run([sys.executable, "-m", "fuzzfarm.cli", "download", bucket, *out], capture_output=True,
                              text=True, timeout=60, cwd=str(cwd), env=env)
    from typer.testing import CliRunner

    from fuzzfarm import cli
    here = os.getcwd()
    os.chdir(cwd)
    try:
        r = CliRunner().invoke(cli.app, ["download", bucket, *out], env={redis_url.ENV: url}, catch_exceptions=False)
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(["fuzzfarm", "download"], r.exit_code, r.stdout, r.stderr)


@pytest.fixture
def plant(secure_redis):
    """Store a bucket with any id and artifact files straight into Redis."""
    srv, _ = secure_redis
    with faultlib.publishing_to(srv.url) as st:
        made = []

        def plant(bid: str, files: dict[str, bytes]) -> str:
            st.update_bucket(bid, id=bid, state="done", harness="ff-crashy", variant="buggy")
            st.put_artifact(bid, files)
            made.append(bid)
            return bid

        yield plant
        for bid in made:
            st.r.delete(f"fuzzfarm:bucket:{bid}", f"fuzzfarm:artifact:{bid}")


# A name of this run's own, the same in every pytest process of a parallel run (pytest-xdist
# requires the processes to collect the same test ids): never an earlier run's leftover.
RUN = (os.environ.get("PYTEST_XDIST_TESTRUNUID") or uuid.uuid4().hex)[:6]


@pytest.mark.parametrize("bucket_id", ["../../escape-" + RUN, "/tmp/abs-bucket", "a/../../b", ".."])
def test_any_bucket_id_writes_only_inside_dir(secure_redis, plant, tmp_path, bucket_id):
    srv, _ = secure_redis
    plant(bucket_id, GOOD)
    work = tmp_path / "work"
    work.mkdir()
    before = _tree(tmp_path)
    p = _download(srv.url, work, bucket_id, "-o", str(work / "out"), subprocess_=bucket_id == "..")
    assert p.returncode == 0, p.stderr
    after = _tree(tmp_path)
    new = {k for k in after if k not in before}
    from fuzzfarm.regression_test import file_name  # download also writes test_<bucket>.py, sanitized
    assert new == {"work/out"} | {f"work/out/{n}" for n in GOOD} | {f"work/out/{file_name(bucket_id)}"}, new
    assert not os.path.exists("/tmp/abs-bucket")


@pytest.mark.parametrize("bad", ["../outside.txt", "/tmp/ff-abs-" + RUN, "sub/inner.txt", "..", ".",
                                 "a\\..\\b", "x\0y", "../" * 8 + "tmp/deep"])
def test_hostile_stored_file_names_write_nothing(secure_redis, plant, tmp_path, bad):
    srv, _ = secure_redis
    bid = plant("b" + uuid.uuid4().hex[:12], {**GOOD, bad: b"pwned"})
    work = tmp_path / "work"
    work.mkdir()
    before = _tree(tmp_path)
    p = _download(srv.url, work, bid, "-o", str(work / "out"))
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert p.returncode == 2 and len(lines) == 1 and "refusing artifact file name" in lines[0], p.stderr
    after = _tree(tmp_path)
    assert {k for k in after if k not in before} <= {"work/out"}, after  # at most the empty DIR itself
    assert not any(v == b"pwned" for v in after.values())
    if "tmp/" in bad:
        assert not os.path.exists("/" + bad.lstrip("./").lstrip("/")), bad


def test_symlink_planted_in_dir_is_replaced_not_followed(secure_redis, plant, tmp_path):
    srv, _ = secure_redis
    bid = plant("b" + uuid.uuid4().hex[:12], GOOD)
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"keep me")
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(victim, out / "input.min")
    p = _download(srv.url, tmp_path, bid, "-o", str(out))  # a file of that name is there: refused, untouched
    assert p.returncode == 2 and "--force" in p.stderr and os.listdir(out) == ["input.min"], p.stderr
    assert os.path.islink(out / "input.min") and victim.read_bytes() == b"keep me"
    p = _download(srv.url, tmp_path, bid, "-o", str(out), "--force")
    assert p.returncode == 0, p.stderr
    assert victim.read_bytes() == b"keep me"
    assert not os.path.islink(out / "input.min") and (out / "input.min").read_bytes() == b"C"


def test_default_directory_stays_inside_fuzzfarm_out(secure_redis, plant, tmp_path):
    srv, _ = secure_redis
    bid = plant("../../escaped-" + uuid.uuid4().hex[:6], GOOD)
    work = tmp_path / "a" / "b" / "work"
    work.mkdir(parents=True)
    before = _tree(tmp_path)
    p = _download(srv.url, work, bid)
    after = _tree(tmp_path)
    new = {k for k in after if k not in before}
    assert all(k.startswith("a/b/work/fuzzfarm-out") for k in new), (new, p.stderr)
    if p.returncode != 0:
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        assert p.returncode == 2 and len(lines) == 1 and "-o" in lines[0], p.stderr
