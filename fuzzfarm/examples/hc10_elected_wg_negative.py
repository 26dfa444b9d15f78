"""HC-10: Envoy Gateway: a WaitGroup used as a one-shot "elected" latch is signalled twice after a reload.

envoyproxy/gateway issue #5065 (also #5253), fixed by PR #5066 (commit 42ae06d3). The server
config holds ``Elected``, a WaitGroup with ``Add(1)`` done once at construction and reused
across config reloads. Each provider setup spawns a goroutine that waits for the manager's
"elected" signal and calls ``Elected.Done()``. After a reload, the second provider's
goroutine calls ``Done`` again: ``panic: sync: negative WaitGroup counter``, whatever the
schedule.

Fixed: each runner setup creates a fresh channel, closed exactly once when elected; waiters
select on it or on ctx done. Never panics, never leaks, for any number of reloads.

Go lines: gateway@4d560a27e771bf540bc1d5e9b078bb9061983612 (the parent of the fix) internal/cmd/server.go,
internal/provider/kubernetes/kubernetes.go, internal/infrastructure/runner/runner.go; the WaitGroup's
``Add(1)`` is ``config.New``'s (internal/envoygateway/config/config.go:55). The elected goroutine
waits on ``mgr.Elected()`` alone, as upstream's does before and after the fix. The manager is a
test double that is always elected (the second one already holds the lease), so the second
``Done()`` comes in every schedule: the panic is certain once the reload happens (the issue's
title: a panic when the config map is updated), and no schedule constraint is left (depth 0).
Left out, since the double is always elected: upstream's elected goroutine of a manager that is
never elected (its context cancelled first) waits forever, in both variants.
"""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import go_func, not_ported

ID = "HC-10"
TITLE = "Envoy Gateway Elected WaitGroup Done twice after a config reload"
SOURCE = "https://github.com/envoyproxy/gateway/issues/5065 (fix PR #5066)"
KIND = "negative WaitGroup counter"
KINDS = (KIND,)
EXC_CLASS = None
DEPTH = 0
RUN_KW = {"check_leaks": True}

FIRST_ELECTION = 0.5
RELOAD_AT = 1.0


@not_ported("builds the scenario's main for one variant")
def _gateway(latch: bool):
    @not_ported("scenario driver: config.New, then the loader's hook runs setupRunners twice (a reload)")
    def main():
        ctx, shutdown = gosim.with_cancel(gosim.background())
        cfg = {"elected_wg": gosim.WaitGroup("cfg.Elected")}
        cfg["elected_wg"].add(1)  # once, when the config object is built
        wg = gosim.WaitGroup("runners")

        @go_func("cmd.setupRunners", "server.go:130")
        def setup(election_delay):
            """Runner setup: a provider whose manager gets elected, and the infra runner."""
            elected = gosim.Chan(name="elected")  # the manager's "elected" notification
            if latch:
                setup_latch = cfg["latch"] = gosim.Chan(name="electedLatch")  # fresh for every setup

            @not_ported("test double: controller-runtime's manager, whose Elected() closes on election")
            def manager():
                try:
                    if election_delay:
                        gosim.sleep(election_delay)
                    else:
                        gosim.gosched()  # already holds the lease: elected right away
                    elected.close()
                finally:
                    wg.done()

            @go_func("kubernetes.New.func1", "kubernetes.go:113")
            def on_elected():  # E_i
                try:
                    elected.recv()  # :114 <-mgr.Elected(): no ctx case, before or after the fix
                    if latch:
                        setup_latch.close()  # the fix: close(svrCfg.Elected) (kubernetes.go:117 at 42ae06d3)
                    else:
                        cfg["elected_wg"].done()  # :115
                finally:
                    wg.done()

            @go_func("Runner.Start.func2", "runner.go:74")
            def infra_runner():  # I
                try:
                    if latch:
                        gosim.select(gosim.recv_case(setup_latch), gosim.recv_case(ctx.done()))
                    else:
                        cfg["elected_wg"].wait()  # :75
                finally:
                    wg.done()

            wg.add(3)
            gosim.go(manager, name="manager")
            gosim.go(on_elected, name="electedWatcher")
            gosim.go(infra_runner, name="infraRunner")

        setup(FIRST_ELECTION)
        gosim.sleep(RELOAD_AT)  # the first election completes; then the config map changes
        setup(0)  # reload: the same config object, a new provider
        shutdown()  # the test ends right after the reload
        wg.wait()

    return main


buggy = _gateway(latch=False)
fixed = _gateway(latch=True)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
