"""The Go version a run models (docs/RUNTIME.md#go-version): Go >= 1.23 timer channels by
default, Go <= 1.22 ones on request, and a failure that needs the old ones says so."""

from __future__ import annotations

import sys
import types

import pytest

from fuzzfarm import gosim
from fuzzfarm.harness import declare
from fuzzfarm.gosim import goversion
from fuzzfarm.harness.runone import outcome_of_module  # noqa: E402
from fuzzfarm.strategies import BytesStrategy
from fuzzfarm.strategies.dfs import DFSStrategy

MS = 0.001


def backoff_manager():
    """The shape of a wait-package backoff manager whose timer starts as NewTimer(0) and whose
    next Backoff() Resets it without draining: the loop then waits on the timer for the backoff.
    Go <= 1.22 timers hand it the zero timer's stale value: the wait returns without backing off."""
    backoff = 0.5
    t = gosim.new_timer(0)           # first Backoff(): the timer nobody waits on
    stop = gosim.Chan()
    done = gosim.Chan()

    def loop():
        gosim.sleep(MS)              # the loop body's work
        start = gosim.now()
        t.reset(backoff)             # next Backoff()
        i, v, _ = gosim.select(gosim.recv_case(stop), gosim.recv_case(t.c))
        if i == 1 and v < start:  # (the elapsed time would also count a goroutine that was slow)
            raise AssertionError(f"backoff wait woke on a tick sent at {v:g}s, before its Reset at {start:g}s")
        done.close()
    gosim.go(loop)
    done.recv()


def every_schedule(main, go_version, bound=2, limit=2000):
    """{failure text or 'ok'} over every schedule with at most ``bound`` preemptions."""
    seen, stack, runs = {}, [([], 0)], 0
    while stack and runs < limit:
        dec, p = stack.pop()
        strat = DFSStrategy(dec, p, bound)
        r = gosim.run(main, strategy=strat, go_version=go_version)
        runs += 1
        seen.setdefault("ok" if r.failure is None else r.failure.kind, r)
        stack.extend(reversed(strat.branches))
    assert not stack, "search did not finish"
    return seen, runs


def test_backoff_shape_fails_in_every_schedule_under_old_timers_and_never_under_new():
    old, n_old = every_schedule(backoff_manager, "1.22")
    new, n_new = every_schedule(backoff_manager, "1.27")
    assert set(old) == {"goroutine panic"}, (n_old, sorted(old))
    assert set(new) == {"ok"}, (n_new, sorted(new))
    f = old["goroutine panic"].failure
    # labelled with the versions it needs, and where the old semantics took over
    assert f.go_versions.startswith(goversion.OLD_TIMERS)
    assert "Reset left a sent value in timer#1.C" in f.go_versions and "test_go_version.py" in f.go_versions
    assert "[needs Go <= 1.22 timers" in str(f)
    assert f.to_json()["go_versions"] == f.go_versions


def test_the_default_is_go_1_27_and_its_timers():
    def main():
        t = gosim.new_timer(MS)
        gosim.sleep(20 * MS)
        a = t.stop()
        i, _, _ = gosim.select(gosim.recv_case(t.c), default=True)
        return a, i, len(t.c), t.c.cap

    box = []
    r = gosim.run(lambda: box.append(main()), strategy=BytesStrategy(b""))
    assert r.go_version == goversion.DEFAULT == "1.27"
    assert box == [(True, gosim.DEFAULT, 0, 0)]
    box.clear()
    gosim.run(lambda: box.append(main()), strategy=BytesStrategy(b""), go_version="go1.22.10")
    assert box == [(False, 0, 0, 1)]


def test_a_failure_that_took_no_old_timer_path_is_not_labelled():
    """Old semantics alone do not make a finding version-bound: only a run that did something
    Go >= 1.23 would not (here nothing: the value is received before the Stop)."""
    def main():
        t = gosim.new_timer(MS)
        t.c.recv()
        t.stop()
        gosim.close(None)

    r = gosim.run(main, strategy=BytesStrategy(b""), go_version="1.22")
    assert r.failure is not None and r.failure.go_versions is None
    assert "needs" not in str(r.failure)


def test_ticker_stop_under_old_timers_labels_the_stale_tick():
    def main():
        tk = gosim.new_ticker(MS)
        gosim.sleep(5 * MS)
        tk.stop()
        i, _, _ = gosim.select(gosim.recv_case(tk.c), default=True)
        assert i == gosim.DEFAULT, "a tick after Stop"

    assert gosim.run(main, strategy=BytesStrategy(b"")).failure is None
    f = gosim.run(main, strategy=BytesStrategy(b""), go_version="1.21").failure
    assert f is not None and "Ticker.Stop left a sent value" in f.go_versions


@pytest.mark.parametrize("bad", ["1.x", "2.0", "", "latest", 1.22])
def test_a_bad_go_version_is_one_clear_error(bad):
    with pytest.raises(ValueError, match="write a Go release such as '1.22'"):
        gosim.run(lambda: None, strategy=BytesStrategy(b""), go_version=bad)


def _harness_module(tmp_path, go_version, go_mod=None):
    name = f"fake_go_version_harness_{len(sys.modules)}"
    mod = types.ModuleType(name)
    mod.__file__ = str(tmp_path / "h.py")
    sys.modules[name] = mod
    if go_mod is not None:
        (tmp_path / "upstream").mkdir()
        (tmp_path / "upstream" / "go.mod").write_text(go_mod)
    h = declare(name, name="backoff", description="backoff shape", decode=lambda rd: None,
                program=lambda sc, variant: backoff_manager, go_version=go_version)
    return h, mod


def test_a_harness_declares_its_go_version_by_its_go_mod(tmp_path):
    h, mod = _harness_module(tmp_path, "upstream/go.mod", "module k8s.io/apimachinery\n\ngo 1.22.0 // toolchain\n")
    assert h.run_kw["go_version"] == "1.22.0"
    out = outcome_of_module(mod, "backoff", "buggy", b"")
    assert out["failed"] and out["go_version"] == "1.22.0"
    assert out["go_versions"].startswith(goversion.OLD_TIMERS)


def test_a_harness_without_a_go_version_runs_the_default(tmp_path):
    name = "fake_go_version_default"
    mod = types.ModuleType(name)
    sys.modules[name] = mod
    declare(name, name="backoff", description="x", decode=lambda rd: None, program=lambda sc, v: backoff_manager)
    out = outcome_of_module(mod, "backoff", "buggy", b"")
    assert not out["failed"] and out["go_version"] == "1.27" and "go_versions" not in out


def test_a_bad_go_mod_is_one_clear_error(tmp_path):
    with pytest.raises(ValueError, match=r"harness 'backoff': go_version: .*no 'go' line"):
        _harness_module(tmp_path, "upstream/go.mod", "module x\n")
    with pytest.raises(ValueError, match=r"harness 'backoff': go_version: .*No such file"):
        _harness_module(tmp_path / "none", "upstream/go.mod")


def test_the_reproducer_says_which_go_it_needs(tmp_path):
    """failure.txt and repro.json of a bucket found under Go <= 1.22 timers name the versions;
    a bucket found under the default names none."""
    import json

    from fuzzfarm.collector import build_artifact

    h, mod = _harness_module(tmp_path, "1.22")
    out = outcome_of_module(mod, "backoff", "buggy", b"", trace=True)
    files = build_artifact(bucket={"id": "b-1", "signature": "s", "harness": "backoff", "variant": "buggy"},
                           original=b"", minimized=b"", outcome=out, harness_hash="h" * 64, version="0")
    assert f"needs:       {goversion.OLD_TIMERS}: Reset left a sent value" in files["failure.txt"].decode()
    assert json.loads(files["repro.json"])["go_versions"].startswith(goversion.OLD_TIMERS)
    plain = dict(out, go_versions=None)
    files = build_artifact(bucket={"id": "b-1", "signature": "s"}, original=b"", minimized=b"", outcome=plain,
                           harness_hash="h" * 64, version="0")
    assert "needs:" not in files["failure.txt"].decode()
