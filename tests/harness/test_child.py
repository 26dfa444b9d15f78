"""The one child runner (fuzzfarm/harness/child.py): the request crosses as JSON (the input's bytes
exactly), the child's answer comes back as JSON, and a harness the child cannot load is its one
line, never a result. Real child processes of the registered ``checker`` harness."""

from __future__ import annotations

import hashlib
import json

from fuzzfarm.harness import child
from fuzzfarm.harness.target import resolve

DATA = bytes(range(256)) + b"\x00\xff" * 8  # every byte value: base64 on the wire must keep them all


def test_the_child_gets_the_input_and_the_request_and_answers_in_json():
    run = child.run_child("fuzzfarm.harness.runone", resolve("checker"), "fixed", DATA, {"trace": False},
                          timeout=120, keep=(child.REQUEST,))
    assert run.rc == 0 and run.result is not None, run.output[-2000:]
    assert run.result["harness"] == "checker" and run.result["variant"] == "fixed"
    assert run.result["input_sha256"] == hashlib.sha256(DATA).hexdigest(), run.result
    assert run.result["trace"] is None  # the request's option reached the child
    wire = json.loads(run.files[child.REQUEST])  # the request is JSON, not pickle
    assert wire["harness"] == "checker" and wire["module"] == resolve("checker").module


def test_a_harness_the_child_cannot_load_is_one_line_and_no_result():
    run = child.run_child("fuzzfarm.harness.runone", resolve("checker"), "nope", DATA, {"trace": False}, timeout=120)
    assert run.rc == 2 and run.result is None, run.output[-2000:]
    assert run.load_error() == "harness 'checker' has no variant 'nope'; choose one of buggy, fixed", run.output
