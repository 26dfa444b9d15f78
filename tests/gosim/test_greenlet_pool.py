"""Goroutine greenlets are reused across goroutines and runs (fuzzfarm/gosim/runtime.py,
``_worker``): a reused one starts with an empty context as a new greenlet does, a goroutine
that never started does not run at teardown nor later, and a goroutine torn down mid-body
gives its greenlet back clean."""

from __future__ import annotations

import contextvars

from greenlet import getcurrent

from fuzzfarm import gosim
from gosim_helpers import fails, ok, run_bytes

VAR = contextvars.ContextVar("pool_test", default="unset")


def _one_goroutine(body):
    def main():
        wg = gosim.WaitGroup(name="wg")
        wg.add(1)

        def child():
            try:
                body()
            finally:
                wg.done()

        gosim.go(child, name="child")
        wg.wait()
    return main


def test_a_reused_greenlet_starts_with_an_empty_context():
    seen, glets = [], []

    def body():
        glets.append(getcurrent())
        seen.append(VAR.get())
        VAR.set("leaked")

    for _ in range(3):
        ok(run_bytes(_one_goroutine(body)))
    assert seen == ["unset"] * 3
    assert len({id(g) for g in glets}) < 3  # the greenlets were in fact reused


def test_a_goroutine_that_never_started_never_runs():
    ran = []

    def main():
        gosim.go(lambda: ran.append("child"), name="child")
        raise ValueError("main fails before the child runs")

    for _ in range(3):
        f = fails(run_bytes(main, b"\x00"), gosim.GoroutinePanic, gid=1)
        assert "main fails" in f.detail
    assert ran == []
    after = []
    ok(run_bytes(_one_goroutine(lambda: after.append("next run"))))
    assert after == ["next run"] and ran == []


def test_a_goroutine_torn_down_mid_body_runs_its_finally_and_frees_its_greenlet():
    log = []

    def main():
        ch = gosim.Chan(name="never")

        def child():
            try:
                ch.recv()
            finally:
                log.append("finally")

        gosim.go(child, name="child")
        gosim.gosched()
        raise ValueError("main fails while the child waits")

    fails(run_bytes(main, b"\x01\x01\x01"), gosim.GoroutinePanic, gid=1)
    assert log == ["finally"]
    after = []
    ok(run_bytes(_one_goroutine(lambda: after.append(VAR.get()))))
    assert after == ["unset"]
