"""``FIXED_MAY_FAIL`` has one meaning (issue 29, item 4): a set of failure signatures ``"kind at
f1 <- f2 <- f3"``, matched alike by the proof, the fix verdict, the fix fuzz, CI and the web view
(they read the bucket's ``fix_keeps``). A bare kind is refused where it is declared, in one line:
with it the proof once said ``proven ...; goroutine panic reachable (a kind the fix keeps)`` for a
new bug the fix brought. ``ff-hazard`` declares its upstream hazard by signature; its
``fixed-newbug`` brings a new panic of the hazard's very kind."""

from __future__ import annotations

import pytest

import faultlib
from fuzzfarm.collector import verdict as V


@pytest.fixture(scope="module")
def site():
    with pytest.MonkeyPatch.context() as mp:
        mp.syspath_prepend(faultlib.SITE)
        mp.setenv("PYTHONPATH", faultlib.SITE)
        yield faultlib.SITE


@pytest.fixture(scope="module")
def bug(site):
    from fuzzfarm.collector import replay
    out = replay("ff-hazard", "buggy", b"")
    assert out["crash_state"] == ["apply_change"], out
    return out


def test_a_bare_kind_is_refused_at_the_declaration():
    from fuzzfarm.harness import declare
    with pytest.raises(ValueError) as e:
        declare("no_such_module", name="bare", description="d", decode=lambda rd: None,
                program=lambda sc, v: (lambda: None), fixed_may_fail={"goroutine panic"})
    msg = str(e.value)
    assert "\n" not in msg and "'goroutine panic' is not a failure signature" in msg, msg
    assert '"kind at f1 <- f2 <- f3"' in msg, msg


def test_a_bare_kind_in_a_hand_written_harness_is_refused_where_it_is_read(tmp_path):
    from fuzzfarm.harness.target import Target
    from fuzzfarm.harness import HarnessError
    (tmp_path / "bare_kind_harness.py").write_text(
        'NAME = "bare"\nVARIANTS = ("buggy", "fixed")\nFIXED_MAY_FAIL = frozenset({"goroutine panic"})\n'
        "def execute(data, variant, **kw):\n    raise NotImplementedError\n"
        "def TestOneInput(data):\n    pass\n")
    t = Target("bare", "bare_kind_harness", str(tmp_path / "bare_kind_harness.py"), False)
    with pytest.raises(HarnessError, match="'goroutine panic' is not a failure signature"):
        t.fixed_may_fail()  # what the workers read (the source; they never import a harness)
    import sys
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(HarnessError, match="'goroutine panic' is not a failure signature"):
            Target("bare", "bare_kind_harness").load()
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("bare_kind_harness", None)


def test_the_declared_hazard_is_tolerated_by_signature_in_proof_and_fix_fuzz(bug):
    from fuzzfarm.collector import fix_verify, prove_fixed
    from fuzzfarm.collector.proofcheck import with_proof
    res = prove_fixed("ff-hazard", "fixed", b"", budget=30)
    assert res["line"].startswith("proven up to 2 preemptions for this scenario"), res["line"]
    assert res["tolerated"] == {"goroutine panic at upstream_hazard": 2}, res
    assert "goroutine panic at upstream_hazard reachable (2 schedules; a hazard the fix keeps" in res["line"]
    ev = fix_verify("ff-hazard", "fixed", b"", expected_signature=bug["signature"], random_runs=50, pct_runs=50)
    assert ev["verdict"] == V.FIXED, ev["summary"]
    assert sum(c.get("tolerated", 0) for c in ev["checks"]) > 0, ev["checks"]  # the search met the hazard
    ev, other = with_proof("ff-hazard", "fixed", ev, res, expected_signature=bug["signature"])
    assert ev["verdict"] == V.FIXED and other is None


def test_a_new_bug_of_the_hazards_kind_is_never_excused(bug):
    from fuzzfarm.collector import fix_verify, prove_fixed
    from fuzzfarm.collector.proofcheck import with_proof
    res = prove_fixed("ff-hazard", "fixed-newbug", b"", budget=30)
    assert res["line"].startswith("NOT fixed for this scenario: goroutine panic"), res["line"]
    assert res["failure"]["crash_state"] == ["new_helper"], res["failure"]
    ev = fix_verify("ff-hazard", "fixed-newbug", b"", expected_signature=bug["signature"], random_runs=0, pct_runs=0)
    ev, other = with_proof("ff-hazard", "fixed-newbug", ev, res, expected_signature=bug["signature"])
    assert ev["verdict"] == V.DIFFERENT, ev["summary"]
    assert ev["summary"] == "fails differently: goroutine panic (RuntimeError) at new_helper", ev["summary"]
    assert other is not None and other["outcome"]["crash_state"] == ["new_helper"]


def test_the_shipped_harnesses_declare_signatures():
    """Every FIXED_MAY_FAIL shipped (harnesses/, the faults site) passes the declaration check."""
    import glob
    import os

    from fuzzfarm.harness.target import Target
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    files = glob.glob(os.path.join(root, "harnesses", "*.py")) + glob.glob(os.path.join(faultlib.SITE, "*", "*.py"))
    declared = 0
    for f in files:
        t = Target(os.path.basename(f), "m", f, False)
        if t.declared("FIXED_MAY_FAIL") is not None:
            declared += 1
            assert all(" at " in s for s in t.fixed_may_fail()), f
    assert declared >= 2  # checker_race and ff-hazard at least
