"""HC-01: leader-election stop callback calls a cancel func that was never set.

kubernetes/kubernetes issue #127665 (fix PR #127834, cherry-pick #128340; alternatives in
PRs #127668 and #127737). The elector ``Run`` (E) defers the "stopped leading" callback and
spawns S for the "started leading" callback, which derives a child context and stores its
``cancel``. The stopped callback calls ``cancel`` unconditionally. If the outer context is
cancelled (T) before S's first step, E leaves its renew loop and the deferred callback calls
a nil func: Go panics with a nil dereference; here ``TypeError: 'NoneType' object is not
callable``. Only timing exposes it: S must stay unscheduled while T's sleep timer fires early.

Fixed (the stronger alternative): the cancellable context and its cancel func exist before
the elector starts, so both callbacks see a valid value.

Go lines: kubernetes@1892e4deb967a2b39cfc2fea87a8bd49274449ef
pkg/controlplane/controller/leaderelection/run_with_leaderelection.go (a stored version with the
bug, still ``var cancel context.CancelFunc``; the fix PR's own parent could not be read here) and
client-go@5d128adc872ea1cbe3c0e005e71c26d218ae41aa tools/leaderelection/leaderelection.go (the last
client-go commit before the issue). The fixed file was not available either: the fixed variant's
callbacks cite the same two closures in the buggy file.
"""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import go_func, not_ported

ID = "HC-01"
TITLE = "leader-election stop callback calls a nil cancel func"
SOURCE = "https://github.com/kubernetes/kubernetes/issues/127665 (fix PR #127834)"
KIND = "goroutine panic"
KINDS = (KIND,)
EXC_CLASS = "TypeError"
DEPTH = 1
# The trigger is starvation (S must stay unscheduled for the test's whole sleep):
# seconds of virtual time a runnable goroutine waits, which the harness default bound
# (docs/timing.md) rules out. This example keeps it reachable.
RUN_KW = {"check_leaks": True, "max_starvation_s": None}

RENEW_PERIOD = 2.0
TEST_RUNS_FOR = 5.0


@go_func("LeaderElector.Run", "leaderelection.go:211")
def _elector_run(ctx, on_started, on_stopped, exited):
    """``leaderelection.LeaderElector.Run``: defer OnStoppedLeading; acquire; go OnStartedLeading; renew."""
    try:
        gosim.gosched()  # :215 acquire the lease (an API round trip)
        if ctx.err() is not None:
            return  # :216 ctx signalled done
        gosim.go(on_started, ctx, name="OnStartedLeading")  # :220
        while True:  # :221 renew loop until the context is done
            idx, _, _ = gosim.select(gosim.recv_case(ctx.done()), gosim.recv_case(gosim.after(RENEW_PERIOD)))
            if idx == 0:
                return
    finally:
        on_stopped()  # :213 defer OnStoppedLeading
        exited.close()


@not_ported("test double: the controller's run(ctx, workers), which returns when ctx is done")
def _run_controller(ctx):
    ctx.done().recv()


@not_ported("scenario driver: the integration test that cancels the outer context")
def buggy():
    """The scenario before the upstream fix (fails under some schedule; see KINDS)."""
    state = {"cancel": None}
    outer, cancel_outer = gosim.with_cancel(gosim.background())

    @go_func("leaderelection.RunWithLeaderElection.func1", "run_with_leaderelection.go:42")
    def on_started(ctx):
        c, cancel = gosim.with_cancel(ctx)  # :43 ctx, cancel = context.WithCancel(ctx)
        state["cancel"] = cancel  # :43
        _run_controller(c)  # :50

    @go_func("leaderelection.RunWithLeaderElection.func2", "run_with_leaderelection.go:52")
    def on_stopped():
        state["cancel"]()  # :53 nil until on_started ran

    exited = gosim.Chan()
    gosim.go(_elector_run, outer, on_started, on_stopped, exited, name="elector")
    gosim.sleep(TEST_RUNS_FOR)  # T: the test cancels the outer context
    cancel_outer()
    exited.recv()


@not_ported("scenario driver: the integration test that cancels the outer context")
def fixed():
    """The scenario after the upstream fix (never fails)."""
    outer, cancel_outer = gosim.with_cancel(gosim.background())
    ctx, cancel = gosim.with_cancel(outer)  # created before the elector starts

    @go_func("leaderelection.RunWithLeaderElection.func1", "run_with_leaderelection.go:42")
    def on_started(_ctx):
        _run_controller(ctx)

    @go_func("leaderelection.RunWithLeaderElection.func2", "run_with_leaderelection.go:52")
    def on_stopped():
        cancel()

    exited = gosim.Chan()
    gosim.go(_elector_run, outer, on_started, on_stopped, exited, name="elector")
    gosim.sleep(TEST_RUNS_FOR)
    cancel_outer()
    exited.recv()
