"""Signature, minimization, verification, fix check, triage and artifacts on the toy harness,
each replay in a real fresh process."""

import json
import os

import pytest

from fuzzfarm.collector import (ArtifactError, artifact_signature, build_artifact, crash_type, replay_on_fixed,
                                load_artifact, minimize, replay, signature, signature_of, triage, verify,
                                write_artifact)
from fuzzfarm.collector.verify import first_divergence
from fuzzfarm.engine import MAX_INPUT_BYTES

# Inputs of the toy harness, found by a seeded search (test_inputs_do_what_they_say checks them).
# Bug A, concurrent map writes, 10 preemptions; with byte 1 (the key) zeroed it is bug B (ValueError).
# (Searched again, random.Random(20261201), when map writes gained their own start point.)
MAP_WRITES = bytes.fromhex("3aeb5554cbf40399a360898d98df55d7c178a8d7c402b8")
# The nil-cancel TypeError; its first byte minus one is "H", on which variant "hang" hangs.
CANCEL = bytes.fromhex("497eb0766d1877f8c6f26b50")


@pytest.fixture(scope="module")
def sig_a():
    from fuzzfarm.harness import Target

    return replay(Target("toy", "toy_harness"), "buggy", MAP_WRITES)["signature"]


def test_inputs_do_what_they_say(toy):
    a = replay(toy, "buggy", MAP_WRITES)
    assert a["crash_type"] == "concurrent map writes" and a["preemptions"] == 10
    b = replay(toy, "buggy", MAP_WRITES[:1] + b"\0" + MAP_WRITES[2:])
    assert b["crash_type"] == "goroutine panic (ValueError)"
    c = replay(toy, "buggy", CANCEL)
    assert c["crash_type"] == "goroutine panic (TypeError)"
    assert c["crash_state"] == ["_Checker.stop", "_cancel.main"]


# ---------------------------------------------------------------- signature
def test_signature_is_type_plus_top3_names_without_locations():
    s = signature("goroutine panic", "TypeError", ["stop", "add", "handle"])
    assert s == signature("goroutine panic", "TypeError", ["stop (a.py:713)", "add (checker_map.py:43)", "handle:12"])
    assert s == signature("goroutine panic", "TypeError", ["stop", "add", "handle", "deeper", "frames"])
    assert s != signature("goroutine panic", "ValueError", ["stop", "add", "handle"])
    assert s != signature("goroutine panic", "TypeError", ["stop", "add", "other"])
    assert len(s) == 40 and int(s, 16) >= 0
    assert crash_type({"kind": "goroutine panic", "exc_class": "TypeError"}) == "goroutine panic (TypeError)"
    assert crash_type({"kind": "concurrent map writes", "exc_class": "ConcurrentMapWrites"}) == "concurrent map writes"


def test_signature_is_stable_across_processes_and_line_free(toy, sig_a):
    outs = [replay(toy, "buggy", MAP_WRITES) for _ in range(2)]
    assert {o["signature"] for o in outs} == {sig_a}
    assert all(":" not in f and "(" not in f for f in outs[0]["crash_state"])
    # another input reaching the same bug through another schedule: same bucket
    assert replay(toy, "buggy", MAP_WRITES + b"\x00\x00")["signature"] == sig_a
    assert signature_of({"failed": False}) is None


# ---------------------------------------------------------------- minimize
def test_minimize_keeps_the_signature_refuses_drift_and_drops_preemptions(toy, sig_a):
    m = minimize(toy, "buggy", MAP_WRITES, expected_signature=sig_a, budget_s=60)
    assert m.signature == sig_a
    assert replay(toy, "buggy", m.data)["signature"] == sig_a  # checked again, fresh process
    assert m.data[1] != 0  # zeroing the key would have been smaller, but it is bug B
    assert m.rejected_other > 0
    assert m.original_size == len(MAP_WRITES) and m.minimized_size == len(m.data) < len(MAP_WRITES)
    assert m.preemptions_before == 10 and m.preemptions_after <= 2
    assert m.runs > 0 and m.stopped == "no pass makes progress"
    again = minimize(toy, "buggy", MAP_WRITES, expected_signature=sig_a, budget_s=60)
    assert again.data == m.data  # deterministic


def test_minimize_survives_hanging_candidates(toy):
    sig = replay(toy, "hang", CANCEL)["signature"]
    m = minimize(toy, "hang", CANCEL, expected_signature=sig, budget_s=30, timeout_s=1)
    assert m.signature == sig and replay(toy, "hang", m.data)["signature"] == sig
    assert m.rejected_other >= 1  # the "H..." candidate hung and was refused


def test_minimize_returns_a_non_reproducing_input_unchanged(toy, sig_a):
    m = minimize(toy, "buggy", b"\x00\x05", expected_signature=sig_a, budget_s=10)
    assert m.data == b"\x00\x05" and "does not" in m.stopped


def test_oversized_inputs_are_refused(toy, sig_a):
    big = bytes(MAX_INPUT_BYTES + 1)
    with pytest.raises(ValueError, match="over the"):
        minimize(toy, "buggy", big, expected_signature=sig_a)
    with pytest.raises(ValueError, match="over the"):
        verify(toy, "buggy", big)


# ---------------------------------------------------------------- verify, fix check
def test_verify_ten_of_ten(toy, sig_a):
    v = verify(toy, "buggy", MAP_WRITES, n=10, expected_signature=sig_a)
    assert v.reproducible and v.signatures == [sig_a] * 10 and v.first_divergence is None
    assert v.kinds == ["concurrent map writes"] * 10


def test_verify_reports_where_a_flaky_harness_diverges(toy):
    v = verify(toy, "flaky", MAP_WRITES, n=10)
    assert not v.reproducible
    assert isinstance(v.first_divergence, int) and v.first_divergence >= 0


def test_first_divergence():
    assert first_divergence([[1, 2, 3], [1, 2, 3]]) is None
    assert first_divergence([[1, 2, 3], [1, 2, 4], [1, 2, 3]]) == 2
    assert first_divergence([[1, 2], [1, 2, 3]]) == 2


def test_replay_on_fixed(toy, sig_a):
    fixed = replay_on_fixed(toy, "fixed", MAP_WRITES, expected_signature=sig_a)
    assert fixed == {**fixed, "variant": "fixed", "failed": False, "fixed": True, "signature": None}
    bug_b = MAP_WRITES[:1] + b"\0" + MAP_WRITES[2:]  # bug B is in the fixed variant too
    still = replay_on_fixed(toy, "fixed", bug_b)  # expected signature from the buggy variant
    assert still["failed"] and not still["fixed"] and still["crash_type"] == "goroutine panic (ValueError)"


# ---------------------------------------------------------------- triage (hangs, memory)
def test_triage_buckets_hangs_and_memory_hogs(toy):
    t = triage(toy, "hang", b"Hx", artifact="timeout", timeout_s=2)
    assert t["kind"] == "timeout" and t["signature"] == artifact_signature("timeout", "toy")
    o = triage(toy, "oom", b"Mx", artifact="oom", memory_limit_mb=300)
    assert o["kind"] == "oom" and o["signature"] == artifact_signature("oom", "toy")
    c = triage(toy, "buggy", CANCEL)
    assert c["crash_type"] == "goroutine panic (TypeError)"
    n = triage(toy, "buggy", b"")
    assert not n["failed"] and n["signature"] is None


# ---------------------------------------------------------------- artifacts
def _files(toy, sig_a, m_data=MAP_WRITES[:9]):
    out = replay(toy, "buggy", MAP_WRITES, trace=True)
    return build_artifact(bucket={"id": "b-1", "signature": sig_a, "harness": "toy", "variant": "buggy"},
                          original=MAP_WRITES, minimized=MAP_WRITES, outcome=out, harness_hash="h" * 64,
                          version="0.1.0")


def test_artifact_round_trip(toy, sig_a, tmp_path):
    files = _files(toy, sig_a)
    assert set(files) == {"input.min", "input.orig", "trace.txt", "trace.json", "failure.txt", "repro.json",
                          "MANIFEST.json"}
    tj = json.loads(files["trace.json"])  # the interleaving as data: the failing event is the last one
    assert tj["events"][-1][4] == "failure" and tj["events"][-1][3] == tj["failing_goroutine"]
    assert {g for g, *_ in tj["legend"]} >= {e[3] for e in tj["events"] if e[3]}
    written = write_artifact(files, tmp_path / "repro")
    assert sorted(os.path.basename(p) for p in written) == sorted(files)
    art = load_artifact(tmp_path / "repro")
    assert art.files == files and art.minimized == MAP_WRITES and art.original == MAP_WRITES
    r = art.repro
    assert (r["harness"], r["variant"], r["signature"], r["fuzzfarm_version"], r["harness_hash"]) == \
        ("toy", "buggy", sig_a, "0.1.0", "h" * 64)
    assert r["replay_command"].startswith("fuzzfarm replay")
    assert r["crash_type"] == "concurrent map writes"
    assert "preempt" in files["trace.txt"].decode() and "concurrent map writes" in files["failure.txt"].decode()
    assert files["failure.txt"].decode().startswith("fatal error: concurrent map writes\n\ncrash type:")  # Go's line first
    manifest = json.loads(files["MANIFEST.json"])
    assert set(manifest["files"]) == set(files) - {"MANIFEST.json"}


@pytest.mark.parametrize("victim", ["input.min", "trace.txt", "repro.json"])
def test_tampered_artifact_names_the_file(toy, sig_a, tmp_path, victim):
    write_artifact(_files(toy, sig_a), tmp_path)
    with open(tmp_path / victim, "ab") as f:
        f.write(b"x")
    with pytest.raises(ArtifactError, match=victim.replace(".", r"\.") + " is corrupt"):
        load_artifact(tmp_path)


def test_truncated_or_incomplete_artifact(toy, sig_a, tmp_path):
    write_artifact(_files(toy, sig_a), tmp_path)
    os.unlink(tmp_path / "input.orig")
    with pytest.raises(ArtifactError, match=r"input\.orig is missing"):
        load_artifact(tmp_path)
    (tmp_path / "MANIFEST.json").write_bytes(b'{"files": ')
    with pytest.raises(ArtifactError, match=r"MANIFEST\.json .*corrupt"):
        load_artifact(tmp_path)


@pytest.mark.parametrize("name", ["../evil", "/etc/evil", "a/b", "..", ".", "", "a\\b", "x\0y", "sub/../../evil"])
def test_write_artifact_never_leaves_the_directory(tmp_path, name):
    out = tmp_path / "out"
    with pytest.raises(ArtifactError, match="refusing"):
        write_artifact({"input.min": b"ok", name: b"evil"}, out)
    assert not (tmp_path / "evil").exists()
    assert not out.exists() or os.listdir(out) == []  # nothing written when one name is bad


def test_write_artifact_replaces_a_planted_symlink(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"precious")
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(outside, out / "input.min")
    write_artifact({"input.min": b"new"}, out)
    assert outside.read_bytes() == b"precious"
    assert not os.path.islink(out / "input.min") and (out / "input.min").read_bytes() == b"new"


def test_load_artifact_refuses_traversal_in_the_manifest(tmp_path):
    (tmp_path / "MANIFEST.json").write_text(json.dumps({"files": {"../x": "0" * 64}}))
    with pytest.raises(ArtifactError, match="refusing"):
        load_artifact(tmp_path)
