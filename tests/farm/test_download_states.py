"""What ``fuzzfarm download`` says about a bucket still in triage: a bucket that is ``proving``
has its final reproducer and fix verdict (only the proof runs), an earlier state has neither."""

from __future__ import annotations

import os

from typer.testing import CliRunner

from fuzzfarm import cli
from fuzzfarm.farm import redis_url


def _download(url: str, cwd, bid: str):
    here = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(cli.app, ["download", bid], env={redis_url.ENV: url}, catch_exceptions=False)
    finally:
        os.chdir(here)


def test_a_proving_bucket_downloads_as_final_and_an_earlier_one_with_a_warning(store, redis_server, tmp_path):
    for bid, state in (("b-proving", "proving"), ("b-verifying", "verifying"), ("b-done", "done")):
        store.update_bucket(bid, id=bid, state=state, harness="checker", variant="buggy")
        store.put_artifact(bid, {"input.min": b"C", "repro.json": b"{}"})
    r = _download(redis_server.url, tmp_path, "b-proving")
    assert r.exit_code == 0 and "proof is still running" in r.stderr and "not minimized" not in r.stderr, r.stderr
    r = _download(redis_server.url, tmp_path, "b-verifying")
    assert r.exit_code == 0 and "not minimized/verified yet" in r.stderr, r.stderr
    r = _download(redis_server.url, tmp_path, "b-done")
    assert r.exit_code == 0 and r.stderr == "", r.stderr
