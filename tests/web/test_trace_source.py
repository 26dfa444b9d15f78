"""Where a bucket page's swimlanes come from: the artifact's trace.json, or, for an artifact
made before that file existed, one traced replay of its minimized input here (a real checker
reproducer, in a fresh process): the same events either way."""

from __future__ import annotations

import json

from fuzzfarm import collector
from fuzzfarm.web import data

CHECKER_INPUT = bytes.fromhex("010000000100")  # the checker's nil-cancel reproducer (benchmarks/web_render.py)


def test_old_artifacts_are_replayed_to_the_same_trace():
    store = None  # data.trace reads only the files it is given
    out = collector.replay("checker", "buggy", CHECKER_INPUT, trace=True)
    assert out["failed"] and out["kind"] == "goroutine panic"
    files = collector.build_artifact(bucket={"id": "b1", "harness": "checker", "variant": "buggy"},
                                     original=CHECKER_INPUT, minimized=CHECKER_INPUT, outcome=out,
                                     harness_hash="0" * 64, version="0")
    tj, source = data.trace(store, "b1", files)
    assert "artifact" in source and tj == json.loads(files["trace.json"])
    old = {k: v for k, v in files.items() if k != "trace.json"}
    data._TRACE_CACHE.clear()
    tj2, source2 = data.trace(store, "b1", old)
    assert "replayed" in source2 and tj2 == tj
    assert tj2["events"][-1][4] == "failure" and tj2["failing_goroutine"] == tj2["events"][-1][3]
    assert data.trace(store, "b1", None) == (None, "no artifact yet")
