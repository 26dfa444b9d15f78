"""The pytest file ``fuzzfarm download`` writes next to a reproducer (``test_<bucket>.py``).

It replays the minimized input in a fresh process, as the collector does: on the recorded
(buggy) variant it must fail with the recorded signature, and on the fixed variant it must
not fail. So it passes only while the fix holds, and can go into the project's own suite as a
regression test. A bucket whose failure kind the harness declares kept by the fix (an
upstream hazard) gets that second test skipped, saying why: a pass there would prove nothing.
Runnable from the download folder alone (``pytest`` there), with fuzzfarm installed.
"""

from __future__ import annotations

TEMPLATE = '''"""Regression test for fuzzfarm bucket {bucket}: {harness}/{variant}, {kind}.

Written by `fuzzfarm download`. Run `python -m pytest` in this folder, with the Python that has
fuzzfarm and the harness installed (its venv's: a bare `pytest` may be another's). It replays
input.min (checked against MANIFEST.json) in a fresh process: {variant!r} must fail as recorded,
{fixed!r} must not fail.
"""

import pathlib

import pytest

from fuzzfarm import collector
from fuzzfarm.harness.target import resolve

HERE = pathlib.Path(__file__).resolve().parent
HARNESS = {harness!r}
BUGGY = {variant!r}
FIXED = {fixed!r}
SIGNATURE = {signature!r}
KEPT_BY_FIX = {kept!r}


def _replay(variant):
    art = collector.load_artifact(HERE)  # raises if a file was modified
    # under the starvation bound the reproducer was found with (repro.json): the schedule depends on it
    return collector.replay(resolve(HARNESS, collector.recorded_max_starvation(art.repro)), variant, art.minimized)


def test_{ident}_fails_on_{variant_ident}_as_recorded():
    out = _replay(BUGGY)
    assert out["failed"], f"{{HARNESS}}/{{BUGGY}} no longer fails on this reproducer"
    assert SIGNATURE is None or out["signature"] == SIGNATURE, f"fails differently: {{out.get('crash_type')}} {{out.get('crash_state')}}"


@pytest.mark.skipif(FIXED is None, reason="the harness has no fixed variant")
@pytest.mark.skipif(KEPT_BY_FIX, reason="the harness declares this failure kind kept by the fix "
                                        "(an upstream hazard): a pass on the fixed variant proves nothing")
def test_{ident}_passes_on_{fixed_ident}():
    out = _replay(FIXED)
    assert not out["failed"], (f"{{HARNESS}}/{{FIXED}} fails on this reproducer: "
                               f"{{out.get('crash_type') or out.get('kind')}} {{out.get('crash_state')}}")
'''


def _ident(text: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in str(text)).strip("_") or "x"


def file_name(bucket_id: str) -> str:
    return f"test_{_ident(bucket_id)}.py"


def render(bucket: dict, *, fixed_variant: str | None, kept_by_fix: bool) -> bytes:
    """The test file's text for ``bucket`` (a bucket record: id, harness, variant, kind, signature)."""
    return TEMPLATE.format(bucket=bucket["id"], harness=bucket["harness"], variant=bucket["variant"],
                           kind=bucket.get("crash_type") or bucket.get("kind") or "failure",
                           fixed=fixed_variant, signature=bucket.get("signature") or None, kept=bool(kept_by_fix),
                           ident=_ident(bucket["id"]), variant_ident=_ident(bucket["variant"]),
                           fixed_ident=_ident(fixed_variant or "fixed")).encode()
