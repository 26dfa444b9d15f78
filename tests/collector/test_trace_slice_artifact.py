"""trace.txt of a real reproducer leads with the failure's slice: the ``examples`` harness's
etcd simple-token deadlock (HC-16, four goroutines) replayed in a fresh process with tracing, as
the collector replays a minimized reproducer, and written as an artifact."""

from __future__ import annotations

import json
import random

from fuzzfarm import examples
from fuzzfarm.collector import build_artifact, replay
from fuzzfarm.harness.runone import outcome

CASE = bytes([examples.CASE_NAMES.index("hc16_simple_token_deadlock")])  # the last byte picks the case


def test_trace_txt_of_a_deadlock_reproducer_leads_with_its_wait_cycle():
    rnd = random.Random(3)
    for _ in range(200):  # a failing schedule, found in this process (cheap), then replayed as the collector does
        data = bytes(rnd.randrange(256) for _ in range(48)) + CASE
        if outcome("examples", "buggy", data)["kind"] == "deadlock":
            break
    out = replay("examples", "buggy", data, trace=True)
    assert out["kind"] == "deadlock", out.get("message")
    files = build_artifact(bucket={"id": "b16"}, original=data, minimized=data, outcome=out, harness_hash="h",
                           version="v")
    text = files["trace.txt"].decode()
    assert text.startswith("failure: deadlock: all goroutines are asleep"), text[:200]
    head, sep, full = text.partition("\nfull timeline:\n")
    assert sep and "scenario: " in head  # the slice, then the scenario, then the whole timeline
    lines = head.split("\n")
    what = next(ln for ln in lines if ln.startswith("what matters: "))
    assert "simpleTokensMu" in what and "resetSimpleTokenCh" in what, what
    n_slice, n_all = (int(x) for x in what.split(": ", 1)[1].split(" events", 1)[0].split(" of "))
    tj = json.loads(files["trace.json"])
    assert n_all == len(tj["events"]) and n_slice == len(tj["slice"]["events"]) and n_slice * 3 <= n_all
    for g in ("simpleTokenTTLKeeper.run", "client1", "client2"):
        assert g in next(ln for ln in lines if ln.startswith("goroutines: "))
    assert full.count("\n") > head.count("\n") and "fatal error: all goroutines are asleep" in full
