"""The engine signature's re-check (farm/triage.py ``_join_by_engine_signature``): a crash whose
fuzz child signed it with a known bucket's signature joins that bucket without a replay only
after one such crash per bucket was replayed in a fresh process and gave that signature.

``ff-warmlabel`` makes the engine's word lie: in a process that ran an ``A`` input, a ``B``
input (another bug: KeyError at another site in a fresh process) fails at bug A's site, so the
fuzz child signs it as bug A. The signatures here are what a fuzz child says: A then B run in
one process by the walk engine's own classification (``runone.outcome_of_module`` +
``signature.engine_signature``). Intake, minimization and verification are the real ones
(fresh-process replays)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from fuzzfarm.farm import store as S

_ENGINE = """
import json, sys
from fuzzfarm import harness as H
from fuzzfarm.harness.runone import outcome_of_module
from fuzzfarm.harness.signature import engine_signature
mod = H.get("ff-warmlabel").load()
print(json.dumps([engine_signature(outcome_of_module(mod, "ff-warmlabel", "buggy", bytes.fromhex(h)))
                  for h in sys.argv[1:]]))
"""


def _engine_words(site: str, *inputs: bytes) -> list[str]:
    """The signature a fuzz child says of each input, run one after the other in one process."""
    env = {**os.environ, "PYTHONPATH": site, "PYTHONHASHSEED": "0"}
    out = subprocess.run([sys.executable, "-c", _ENGINE, *(d.hex() for d in inputs)], env=env,
                         capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_mislabelled_engine_signature_cannot_merge_two_bugs(store, site, monkeypatch):
    from fuzzfarm.farm import triage
    monkeypatch.setattr(triage, "VERIFY_RUNS", 3)
    monkeypatch.setattr(triage, "MINIMIZE_BUDGET_S", 3)
    a1, b1, a2 = b"A\x01\x02", b"B\x03\x04", b"A\x05\x06"
    said_a1, said_b1 = _engine_words(site, a1, b1)
    said_a_cold, said_b_cold = _engine_words(site, b"A", b"B")[0], _engine_words(site, b"B")[0]
    assert said_b1 == said_a1 and said_b_cold != said_a_cold  # the harness lies as built to
    cid = store.create_campaign({"harness": "ff-warmlabel", "variant": "buggy", "strategy": "bytes", "jobs": 1,
                                 "duration_s": 1.0, "harness_hash": "h" * 64, "version": "0"})

    def intake(data: bytes, said: str):
        sha, _ = store.report_crash(cid, 0, "ff-warmlabel", "buggy", data, engine_signature=said)
        return triage.intake(store, cid, "ff-warmlabel", "buggy", sha, enqueue_triage=lambda _b: None)

    bug_a = intake(a1, said_a1)
    assert triage.minimize(store, bug_a, owner="m", enqueue_next=lambda _b: None)
    assert triage.verify(store, bug_a, owner="v", enqueue_next=lambda _b: None)
    assert triage.known_steady(store.bucket(bug_a))  # verified, 3/3: what the engine's word may join

    bug_b = intake(b1, said_b1)  # signed as bug A by the warm fuzz child
    assert bug_b and bug_b != bug_a, "a B input joined bug A's bucket on the engine's word"
    b = store.bucket(bug_b)
    assert b["exc_class"] == "KeyError" and b["count"] == 1
    assert store.bucket(bug_a)["count"] == 1 and not store.bucket(bug_a).get("joined_unreplayed")
    c = store.crash("ff-warmlabel", "buggy", S.sha256(b1))
    assert c["engine_signature_mismatch"] == "true" and c.get("joined") is None
    # the engine was caught lying: a later crash is replayed even with a true word
    assert intake(a2, said_a1) == bug_a
    assert store.crash("ff-warmlabel", "buggy", S.sha256(a2)).get("joined") is None
    assert not store.bucket(bug_a).get("joined_unreplayed")
