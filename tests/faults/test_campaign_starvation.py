"""A campaign's own starvation bound (``submit --max-starvation``) reaches every run of its
triage, and its reproducer replays under it. ``ff-starved`` fails only when a runnable goroutine
waits 1 virtual second (never under the default bound of 0.1 s), and its ``fixed`` variant still
fails that way: a triage child that ran under the worker's bound instead of the campaign's would
call the input unreproducible, keep it unminimized, verify it 0/N, and call the fix ``fixed``."""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import subprocess
import sys

import pytest

import faultlib
from fuzzfarm.farm import store as S
from fuzzfarm.farm.store import keys

# Fails under no bound; the bytes after the 4th are never read (the minimizer drops them).
STARVED = bytes.fromhex("9e985182b70eee7f1a5039bef07ec2347f066e")


def _replay(bound, variant="buggy", data=STARVED):
    from fuzzfarm import collector
    from fuzzfarm.harness.target import resolve
    return collector.replay(resolve("ff-starved", bound), variant, data)


def test_triage_runs_every_child_under_the_campaigns_bound(store, site, monkeypatch):
    from fuzzfarm.farm import triage
    monkeypatch.setattr(triage, "VERIFY_RUNS", 3)
    monkeypatch.setattr(triage, "MINIMIZE_BUDGET_S", 5)
    monkeypatch.setattr(triage, "FIX_RANDOM_RUNS", 40)
    monkeypatch.setattr(triage, "FIX_PCT_RUNS", 40)
    # each piece of the fix check from fix_check itself (the farm test covers the pieces that
    # the verify step starts ahead, farm/triage_ahead.py)
    monkeypatch.setattr(triage.triage_ahead, "ENABLED", False)
    cid = store.create_campaign({"harness": "ff-starved", "variant": "buggy", "strategy": "random", "jobs": 1,
                                 "duration_s": 1.0, "harness_hash": "h" * 64, "version": "0",
                                 "max_starvation_s": "none"})
    sha, _ = store.report_crash(cid, 0, "ff-starved", "buggy", STARVED)
    bid = triage.intake(store, cid, "ff-starved", "buggy", sha, enqueue_triage=lambda _b: None)
    assert bid, store.crash("ff-starved", "buggy", sha)  # the intake replays ran under "none"
    assert store.bucket(bid)["max_starvation_s"] == "none"
    assert triage.minimize(store, bid, owner="m", enqueue_next=lambda _b: None)
    b = store.bucket(bid)
    assert b["minimized_size"] < len(STARVED), b  # the minimizer's candidates failed: same bound
    assert triage.verify(store, bid, owner="v", enqueue_next=lambda _b: None)
    b = store.bucket(bid)
    assert (b["verify_ok"], b["verify_n"], b["reproducible"]) == (3, 3, True), b
    assert triage.fix_check(store, bid, owner="f")
    b = store.bucket(bid)
    assert b["state"] == S.B_DONE and b["fix_verdict"] != "fixed" and b["fixed"] is False, b
    assert b["fix_proof"]["failure"], b  # the proof's search ran under "none" too
    art = store.artifact(bid)
    repro = json.loads(art["repro.json"])
    assert "max_starvation_s" in repro and repro["max_starvation_s"] is None, repro  # null: no bound in time
    assert "worker did not run" in art["trace.txt"].decode(), art["trace.txt"][:500]
    # what the bound decides: the reproducer fails only under it (None: the collector's default, 0.1 s)
    assert _replay("none", data=art["input.min"])["failed"] and not _replay(None, data=art["input.min"])["failed"]


def _standalone(directory) -> subprocess.CompletedProcess:
    """repro.json's ``replay_standalone`` run as written, in the reproducer's directory, with no
    FUZZFARM_MAX_STARVATION_S here: the default 0.1 s. A downloaded one names this interpreter; an
    artifact as the collector stored it names a bare ``python``, which stands for it."""
    argv = shlex.split(json.loads((directory / "repro.json").read_text())["replay_standalone"])
    assert argv[0] in ("python", sys.executable) and argv[1:3] == ["-m", "fuzzfarm.runone"], argv
    env = {k: v for k, v in os.environ.items() if k != "FUZZFARM_MAX_STARVATION_S"}
    return subprocess.run([sys.executable, *argv[1:]], capture_output=True, text=True, timeout=120,
                          cwd=str(directory), env={**env, "PYTHONPATH": faultlib.SITE})


@pytest.mark.parametrize("bound, fails", [("none", True), ("0.1", False)])
def test_the_standalone_replay_command_carries_the_recorded_bound(site, tmp_path, bound, fails):
    from fuzzfarm import collector
    out = _replay("none", data=STARVED)
    assert out["failed"], out
    # the bucket as a campaign under "none" (or the default) records it; the artifact's replay ran under it
    out = _replay(bound, data=STARVED) if bound != "none" else out
    files = collector.build_artifact(bucket={"id": "b1", "signature": out["signature"] or "s", "harness": "ff-starved",
                                             "variant": "buggy", "max_starvation_s": bound},
                                     original=STARVED, minimized=STARVED, outcome=out, harness_hash="h", version="0")
    collector.write_artifact(files, tmp_path)
    repro = json.loads((tmp_path / "repro.json").read_text())
    assert f"--max-starvation={bound}" in repro["replay_standalone"], repro
    p = _standalone(tmp_path)
    assert p.returncode == (1 if fails else 0), (repro["replay_standalone"], p.stdout[-500:], p.stderr)
    res = json.loads(p.stdout.splitlines()[-1])
    shown = "none" if bound == "none" else "0.1 s"
    assert res["max_starvation_s"] == (None if bound == "none" else 0.1), res
    assert f"(bound {shown}), the longest a runnable goroutine waited" in res["trace"], res["trace"][:300]
    # fuzzfarm replay says which bound it replayed under: the recorded one, whatever this machine says
    p = _cli("redis://127.0.0.1:1/0", tmp_path, "replay", str(tmp_path), "-q",
             env={"FUZZFARM_MAX_STARVATION_S": "0.1" if bound == "none" else "none"})
    assert p.returncode == (1 if fails else 0), (p.stdout, p.stderr)
    assert f"minimized input, starvation bound {shown})" in p.stdout, p.stdout


def test_runone_rejects_a_bad_bound_in_one_line(site, tmp_path):
    (tmp_path / "input.min").write_bytes(STARVED)
    p = subprocess.run([sys.executable, "-m", "fuzzfarm.runone", "ff-starved", "buggy", "input.min",
                        "--max-starvation=soon"], capture_output=True, text=True, timeout=60, cwd=str(tmp_path),
                       env={**os.environ, "PYTHONPATH": faultlib.SITE})
    assert p.returncode == 2 and p.stdout == "", (p.stdout, p.stderr)
    assert p.stderr.count("\n") == 1 and "--max-starvation 'soon' is not a finite number" in p.stderr, p.stderr


def _cli(url: str, cwd, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    e = {k: v for k, v in os.environ.items() if k != "FUZZFARM_MAX_STARVATION_S"}
    e.update({"FUZZFARM_REDIS_URL": url, "PYTHONPATH": faultlib.SITE, "COLUMNS": "250", **(env or {})})
    return subprocess.run([sys.executable, "-m", "fuzzfarm.cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=str(cwd), env=e)


def test_a_campaign_submitted_with_no_bound_finds_verifies_and_replays_the_starved_bug(fault_farm, fst, tmp_path,
                                                                                      site_on_path, monkeypatch):
    from rich.console import Console

    from fuzzfarm.views import download_bucket
    from fuzzfarm.cli.campaigns import _status_view
    from fuzzfarm.farm import portfolio
    # the default mix: job 0 starts on the walks, job 1 on atheris, and each runs the other after
    p = _cli(fault_farm.url, tmp_path, "submit", "ff-starved", "-j", "2", "-d", "6", "--max-starvation", "none",
             "--json")
    assert p.returncode == 0, p.stderr
    cid = json.loads(p.stdout)["campaign"]
    assert fst.campaign(cid)["max_starvation_s"] == "none"
    console = Console(record=True, width=250)
    console.print(_status_view(fst, cid, wide=False))
    assert "max starvation none" in console.export_text(), console.export_text()
    faultlib.wait_until(lambda: faultlib.campaign_settled(fst, cid), 180, "the ff-starved campaign to settle")
    notes = fst.r.hgetall(keys.campaign_mix(cid))
    found_by = {v.split()[0] for k, v in notes.items() if k.startswith("crash.")}
    assert found_by == set(portfolio.ENGINES), notes  # walk and atheris children ran under "none"
    (bid,) = fst.campaign_bucket_ids(cid)
    b = fst.bucket(bid)
    assert b["state"] == S.B_DONE and b["max_starvation_s"] == "none", b
    assert b["reproducible"] is True and b["verify_ok"] == b["verify_n"] > 0, b
    assert b["fix_verdict"] != "fixed" and b["fix_proof"]["failure"], b  # fix evidence and proof under "none"
    download_bucket(fst, bid, str(tmp_path / "repro"))
    repro = json.loads((tmp_path / "repro" / "repro.json").read_text())
    assert "max_starvation_s" in repro and repro["max_starvation_s"] is None, repro
    # the recorded bound, not this machine's, whatever FUZZFARM_MAX_STARVATION_S says here
    p = _cli(fault_farm.url, tmp_path, "replay", str(tmp_path / "repro"), "-q",
             env={"FUZZFARM_MAX_STARVATION_S": "0.1"})
    assert p.returncode == 1 and "fails as recorded" in p.stdout, (p.stdout, p.stderr)
    assert "starvation bound none)" in p.stdout, p.stdout
    assert "runnable but not running for 1 s (over the 0.1 s realism bound)" in p.stdout, p.stdout  # what it needs
    monkeypatch.setenv("PYTHONPATH", faultlib.SITE)  # for this process's replay children
    monkeypatch.delenv("FUZZFARM_MAX_STARVATION_S", raising=False)
    assert not _replay(None, data=(tmp_path / "repro" / "input.min").read_bytes())["failed"]  # it needs the bound
    assert _standalone(tmp_path / "repro").returncode == 1  # repro.json's replay_standalone, as written
    # the regression test `download` wrote replays under it too (called here, not via pytest: faster)
    (test_file,) = (tmp_path / "repro").glob("test_*.py")
    spec = importlib.util.spec_from_file_location("starved_regression", test_file)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    (fails,) = [getattr(mod, n) for n in dir(mod) if n.startswith("test_") and "fails_on" in n]
    fails()


def test_a_dfs_search_runs_its_subtrees_under_its_bound(fault_farm, fst, tmp_path):
    (tmp_path / "input").write_bytes(STARVED)
    p = _cli(fault_farm.url, tmp_path, "submit", "ff-starved", "--strategy", "dfs", "--input", str(tmp_path / "input"),
             "--max-starvation", "none", "--wait", "--timeout", "120", "--json")
    res = json.loads(p.stdout or "{}")
    assert p.returncode == 1 and res.get("failures"), (p.stdout, p.stderr)  # under the default it is exhausted clean


def test_the_default_campaign_finds_the_starved_bug_and_ci_fails_only_within_its_max_starvation(fault_farm, fst,
                                                                                                tmp_path):
    """No bound given anywhere: the default setting (the 0.1 s realism bound as a label) still
    finds ff-starved's bug, which needs its worker kept runnable for 1 s; its bucket says so.
    ``ci --max-starvation 0.1`` reports it and does not fail on it; nothing is dropped."""
    p = _cli(fault_farm.url, tmp_path, "ci", "ff-starved", "-j", "2", "-d", "6", "--strategy", "mix",
             "--max-starvation", "0.1", "-o", str(tmp_path / "ci"), "--json", "--markdown", str(tmp_path / "s.md"))
    assert p.returncode == 0, (p.stdout[-3000:], p.stderr[-3000:])
    rep = json.loads(p.stdout)
    (b,) = rep["buckets"]
    assert b["reproducible"] is True and b["starvation_s"] >= 1.0 and b["fails"] is False and b["new"], b
    assert b["max_starvation_s"] == "label" and rep["new_over_max_starvation"] == 1 and rep["new_reproducible"] == 0
    assert any(name != "main" for _, name in b["starved"]), b["starved"]  # the worker, by its Go name
    md = (tmp_path / "s.md").read_text()
    assert "new, over --max-starvation" in md and "over the 0.1 s realism bound" in md, md
    # the bucket's reproducer and the web view say what it needs
    art = fst.artifact(b["id"])
    need = "runnable but not running for 1 s (over the 0.1 s realism bound)"
    assert need in art["failure.txt"].decode() and need in art["trace.txt"].decode()
    assert json.loads(art["repro.json"])["starvation_need"].startswith("needs G")
    from fuzzfarm import views
    (w,) = views.bucket_rows(fst, rep["campaign"])
    assert need in w["starvation_need"] and not w["realistic"] and "over 0.1 s" in w["starvation"], w
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "web"))
    from webtools import WebServer, get
    web = WebServer(fault_farm.url, tmp_path / "web.log")
    try:  # as rendered: the bucket page and the campaign's bucket table
        for path in (f"/bucket/{b['id']}", f"/campaign/{rep['campaign']}"):
            status, html = get(web.base + path)
            assert status == 200 and need in html.decode(), (path, html[:3000])
    finally:
        web.stop()
    # the same campaign's verdict without the limit: the run fails on it
    from fuzzfarm import ci_report
    (v,) = ci_report.verdicts([b], set())
    assert v["fails"] and v["needs"] >= 1.0
