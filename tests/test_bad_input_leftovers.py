"""Bad input that used to end in a traceback, a silent overwrite, a false success or a 70 s wait:
each is now one line on stderr saying what to do, exit 2, and nothing is lost. In-process (typer's
test runner; the same `app` as the console script) against the session's real redis-server."""

from __future__ import annotations

import hashlib
import json
import os

import pytest

from fuzzfarm.farm import redis_url


def run(*args: str, url: str | None = None, cwd=None):
    """``fuzzfarm ARGS`` in this process; (exit code, stdout, stderr)."""
    from typer.testing import CliRunner

    from fuzzfarm import cli
    env = {redis_url.ENV: url or "redis://127.0.0.1:1/0"}
    here = os.getcwd()
    if cwd:
        os.chdir(cwd)
    try:
        r = CliRunner().invoke(cli.app, list(args), env=env, catch_exceptions=False)
    finally:
        os.chdir(here)
    return r.exit_code, r.stdout, r.stderr


def one_line(code: int, stderr: str, *needles: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1, (code, stderr)
    assert lines[0].startswith("fuzzfarm: error: ") and "Traceback" not in stderr, stderr
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


# ---- download into a directory that already holds the reproducer's files ----------------------
ARTIFACT = {"input.min": b"C", "repro.json": b'{"harness": "x", "variant": "buggy"}\n', "MANIFEST.json": b"{}"}


@pytest.fixture
def bucket(store):
    bid = "b0123456789ab"
    store.update_bucket(bid, id=bid, state="done", harness="ff-crashy", variant="buggy")
    store.put_artifact(bid, ARTIFACT)
    return bid


def test_download_refuses_a_non_empty_directory_unless_forced(store, bucket, tmp_path):
    # unrelated files only: a reproducer written beside them would read as theirs
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_bytes(b"mine")
    code, _, err = run("download", bucket, "-o", str(other), url=store.url)
    one_line(code, err, f"{other} is not empty (it holds notes.txt)", "--force")
    assert os.listdir(other) == ["notes.txt"]
    out = tmp_path / "repro"
    out.mkdir()
    (out / "input.min").write_bytes(b"my own bytes")
    (out / "notes.txt").write_bytes(b"mine too")
    code, _, err = run("download", bucket, "-o", str(out), url=store.url)
    one_line(code, err, "is not empty (it holds input.min and 1 more)", "--force")
    assert sorted(os.listdir(out)) == ["input.min", "notes.txt"]  # nothing written, nothing lost
    assert (out / "input.min").read_bytes() == b"my own bytes"
    code, _, err = run("download", bucket, "-o", str(out), "--force", url=store.url)
    assert code == 0, err
    assert (out / "input.min").read_bytes() == b"C" and (out / "notes.txt").read_bytes() == b"mine too"
    # a new directory, or an empty one, is no conflict
    (tmp_path / "empty").mkdir()
    for d in ("fresh", "empty"):
        code, _, err = run("download", bucket, "-o", str(tmp_path / d), url=store.url)
        assert code == 0 and (tmp_path / d / "input.min").read_bytes() == b"C", err


# ---- a baseline of the wrong shape ------------------------------------------------------------
@pytest.mark.parametrize("doc, needle", [
    ({"runs": {"a": 1}}, "runs are not a list"),
    ({"runs": [1]}, "a run is not an object"),
    ({"runs": [{"properties": []}]}, "properties are not an object"),
    ({"runs": [{"properties": {"fuzzfarm_buckets": [["b1"]]}}]}, "fuzzfarm_buckets"),
    ({"runs": [{"results": [7]}]}, "a result is not an object"),
    ({"runs": [{"results": [{"partialFingerprints": ["x"]}]}]}, "partialFingerprints"),
    ({"runs": [{"results": [{"partialFingerprints": {"fuzzfarmBucket/v1": {"x": 1}}}]}]}, "fingerprint"),
    ({"buckets": [{"id": ["b1"]}], "baseline": 5}, "not a list of bucket ids"),
])
def test_a_baseline_of_the_wrong_shape_is_one_line(tmp_path, doc, needle):
    path = tmp_path / "baseline.sarif"
    path.write_text(json.dumps(doc))
    code, _, err = run("ci", "checker", "--baseline", str(path), "-o", str(tmp_path / "out"))
    one_line(code, err, needle)
    assert not (tmp_path / "out").exists()  # said before any farm was started


def test_a_well_formed_sarif_baseline_still_reads():
    from fuzzfarm import ci_report
    doc = ci_report.sarif(target="t/buggy", harness_path=None, campaign="c1", replay={}, version="0",
                          verdicts_=[{"new": True, "reproducible": True, "fails": True, "buckets": [{"id": "b1"}]},
                                     {"new": False, "reproducible": True, "fails": False, "buckets": [{"id": "b2"}]}])
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".sarif", delete=False) as f:
        json.dump(doc, f)
    try:
        assert ci_report.read_baseline(f.name) == {"b1", "b2"}
    finally:
        os.unlink(f.name)


# ---- replay of a hand-made directory ----------------------------------------------------------
def _reproducer(d, files: dict[str, bytes], dirs=()):
    d.mkdir()
    for name, data in files.items():
        (d / name).write_bytes(data)
    listed = {n: hashlib.sha256(b).hexdigest() for n, b in files.items()}
    for name in dirs:
        (d / name).mkdir()
        listed[name] = hashlib.sha256(b"").hexdigest()
    (d / "MANIFEST.json").write_text(json.dumps({"format": 1, "files": listed}))
    return d


def test_replay_of_input_min_as_a_directory_is_one_line(tmp_path):
    d = _reproducer(tmp_path / "r", {"repro.json": b'{"harness": "checker", "variant": "buggy"}'}, dirs=["input.min"])
    code, _, err = run("replay", str(d))
    one_line(code, err, "cannot read input.min", "download the reproducer again")


def test_replay_of_a_manifest_that_is_a_directory_is_one_line(tmp_path):
    d = tmp_path / "r"
    (d / "MANIFEST.json").mkdir(parents=True)
    code, _, err = run("replay", str(d))
    one_line(code, err, "cannot read MANIFEST.json")


@pytest.mark.parametrize("repro", [b"[]", b'"checker"', b"3"])
def test_replay_of_a_repro_json_that_is_no_object_is_one_line(tmp_path, repro):
    d = _reproducer(tmp_path / "r", {"input.min": b"C", "repro.json": repro})
    code, _, err = run("replay", str(d))
    one_line(code, err, "repro.json", "not a JSON object")


@pytest.mark.parametrize("field, value", [("harness", 5), ("variant", ["buggy"]), ("harness_hash", 7),
                                          ("crash_state", "ObjectChecker.stop")])
def test_replay_of_a_repro_json_with_a_malformed_field_is_one_line(tmp_path, field, value):
    repro = {"harness": "checker", "variant": "buggy", field: value}
    d = _reproducer(tmp_path / "r", {"input.min": b"C", "repro.json": json.dumps(repro).encode()})
    code, _, err = run("replay", str(d))
    one_line(code, err, f"malformed {field!r}")


# ---- group names and no-op merges -------------------------------------------------------------
def _two_groups(store) -> dict[str, dict]:
    for sig, kind, state in (("s1", "goroutine panic", ["ObjectChecker.stop", "a"]),
                             ("s2", "goroutine panic", ["ObjectChecker.stop", "b"]),
                             ("t1", "concurrent map writes", ["default_opts", "new"])):
        store.create_or_join_bucket(harness="checker", variant="buggy", signature=sig, input_sha256=sig,
                                    fields={"kind": kind, "crash_type": kind, "crash_state": state})
    code, out, err = run("crashes", "--json", url=store.url)
    assert code == 0, err
    return {r["signature"]: r for r in json.loads(out)}


def _groups(store) -> tuple[dict, dict]:
    return store.group_overrides(), store.group_names()


@pytest.mark.parametrize("name", ["evil\x1b[2Jname", "two\nlines", "rtl\u202eoverride", "zero\u200bwidth", "   "])
def test_group_names_with_control_characters_or_blank_are_refused(store, name):
    rows = _two_groups(store)
    before = _groups(store)
    for args in (("group", "split", rows["s2"]["id"], "--name", name),
                 ("group", "merge", rows["s1"]["group"], rows["t1"]["group"], "--name", name)):
        code, _, err = run(*args, url=store.url)
        one_line(code, err, "--name")
        assert "\x1b" not in err and "\u202e" not in err
        assert _groups(store) == before  # nothing changed


def test_a_printable_unicode_group_name_is_kept(store):
    rows = _two_groups(store)
    code, _, err = run("group", "split", rows["s2"]["id"], "--name", "Größe: ObjectChecker.stop (split)", url=store.url)
    assert code == 0, err
    assert "Größe: ObjectChecker.stop (split)" in store.group_names().values()


def test_a_merge_that_changes_nothing_is_not_reported_as_done(store):
    rows = _two_groups(store)
    g = rows["s1"]["group"]
    assert rows["s2"]["group"] == g != rows["t1"]["group"]
    before = _groups(store)
    for refs in ((g, g), (rows["s1"]["id"], rows["s2"]["id"]), (g, rows["s2"]["id"], g)):
        code, out, err = run("group", "merge", *refs, url=store.url)
        one_line(code, err, "already", "nothing merged")
        assert out == "" and _groups(store) == before
    # a real merge still works and counts each moved bucket once
    code, out, err = run("group", "merge", g, rows["t1"]["group"], rows["t1"]["id"], url=store.url)
    assert code == 0 and out.startswith("1 bucket(s) -> group "), (out, err)


# ---- Redis URLs, --interval, web token --------------------------------------------------------
@pytest.mark.parametrize("url", ["redis://[::1:6379/0", "redis://[::1/0", "rediss://u:pw-XYZ@[zz]:6379/0"])
def test_a_malformed_ipv6_redis_url_is_one_line(url):
    code, _, err = run("--redis", url, "status")
    line = one_line(code, err, "malformed host", "redis://[::1]:6379/0")
    assert "pw-XYZ" not in line


@pytest.mark.parametrize("interval", ["nan", "inf", "-inf", "0", "1e400"])
def test_status_watch_interval_must_be_a_finite_positive_number(interval):
    code, _, err = run("status", "--watch", "--interval", interval)
    one_line(code, err, "--interval must be a positive number of seconds")


@pytest.mark.parametrize("token", [" " * 12, "\t \t \t \t ", "  short  "])
def test_a_web_token_of_blanks_is_refused(token):
    code, _, err = run("web", "--token", token, "--port", "1")
    one_line(code, err, "web token must be at least 8 characters other than spaces")


@pytest.mark.timeout(60)
def test_rediss_to_a_plain_tcp_redis_fails_within_the_connect_timeout(redis_server, monkeypatch):
    """The TLS handshake is bounded by the connect timeout, not the read timeout: with the read
    timeout raised to 10 minutes this test only finishes (pytest-timeout: 60 s) if that holds."""
    from fuzzfarm.farm import store as S
    monkeypatch.setattr(S, "SOCKET_CONNECT_TIMEOUT_S", 0.5)
    monkeypatch.setattr(S, "SOCKET_TIMEOUT_S", 600.0)
    url = "rediss" + redis_server.url[len("redis"):]
    with pytest.raises(S.StoreError) as e:
        S.Store(url).ping()
    assert "TLS handshake" in str(e.value) and "use redis://" in str(e.value)


def test_the_web_cancel_of_a_settled_campaign_changes_nothing(store):
    from fuzzfarm.web import actions
    cid = store.create_campaign({"harness": "checker", "variant": "buggy", "jobs": 1, "duration_s": 1.0,
                                 "strategy": "bytes"})
    assert actions.cancel(store, cid) == "0 running job(s) stop within seconds"  # the queued job: cancelled
    assert store.campaign_summary(cid)["status"] == "cancelled"
    before = store.campaign(cid)
    with pytest.raises(actions.ActionError, match="already cancelled; nothing to cancel"):
        actions.cancel(store, cid)
    assert store.campaign(cid) == before
    with pytest.raises(ValueError, match="no group or bucket"):  # split/merge: the CLI's own errors
        actions.split(store, "bnothere")


# ---- a downloaded reproducer's standalone replay command runs as written, outside the venv ---
def test_the_downloaded_replay_standalone_runs_as_written_outside_the_venv(store, tmp_path):
    """repro.json's ``replay_standalone`` named a bare ``python`` (the collector's worker wrote it):
    in a shell without fuzzfarm's venv that is another Python, or none. A download names this
    installation's interpreter, as the replay command it prints does; the manifest still verifies."""
    import shlex
    import subprocess

    from fuzzfarm import collector
    from fuzzfarm.harness.runone import outcome

    data = bytes(range(64))
    out = outcome("checker", "buggy", data)
    files = collector.build_artifact(bucket={"id": "b1", "signature": "s", "harness": "checker", "variant": "buggy"},
                                     original=data, minimized=data, outcome=out, harness_hash="h", version="0")
    assert json.loads(files["repro.json"])["replay_standalone"].startswith("python -m fuzzfarm.runone ")  # as stored
    bid = "b00000000standalone"
    store.update_bucket(bid, id=bid, state="done", harness="checker", variant="buggy")
    store.put_artifact(bid, files)
    code, _, err = run("download", bid, "-o", str(tmp_path / "repro"), url=store.url)
    assert code == 0, err
    cmd = json.loads((tmp_path / "repro" / "repro.json").read_text())["replay_standalone"]
    assert shlex.split(cmd)[0] == os.path.abspath(__import__("sys").executable), cmd
    collector.load_artifact(tmp_path / "repro")  # every sha256 in the manifest still matches
    bare = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/")}  # no venv, nothing of fuzzfarm's
    p = subprocess.run(["sh", "-c", cmd], cwd=tmp_path / "repro", env=bare, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode in (0, 1) and json.loads(p.stdout.splitlines()[-1])["harness"] == "checker", (cmd, p.stderr)
