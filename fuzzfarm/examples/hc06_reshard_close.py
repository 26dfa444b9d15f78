"""HC-06: Prometheus remote-write ``Stop()`` races with an in-flight reshard: close of closed channel.

prometheus/prometheus issue #5451, fixed by PR #5460 "Prevent reshard concurrent with calling
stop" (lock detail: PR #6827). U, the update-shards loop, ticks and sends a reshard request;
L, the reshard loop, stops the current shards and starts new ones; S (``Stop``, e.g. a config
reload) closes quit, then stops the shards. The shards' stop closes their soft-shutdown
channel under a *read* lock only, which does not exclude another stopper: if the tick fires
shortly before Stop and L is already past its select, both close the same channel.

Fixed: ``Stop`` closes quit and waits for the QueueManager goroutines (U and L) to exit before
stopping the shards, so stop and reshard never overlap.

Go lines: prometheus@1a9cdbd024fea05a1888c3164058087476cfdc3b storage/remote/queue_manager.go (the
parent of the fix, ef19ede14adbb601d9736369b517b20b446ffab7). ``main`` is the scenario: ``Start``
(:309), a config reload, then ``Stop``'s body (:320; buggy :324-327, fixed :324-329 at the fix).
The reshard request is ``calculateDesiredShards``' select (:502) with a ``default``: when the reshard
loop is not waiting in its select, the request is skipped, as upstream does. So a reshard starts
only if L is parked in its select at the tick; U never waits for L. The shards' flush (``stop``'s
wait for ``done`` or ``flushDeadline``, the ``runShard`` goroutines) and the rate arithmetic are
left out: every tick asks for one more shard. ``shards.stop`` has no scheduling point of its own
between the read lock and the close (upstream has no operation there).
"""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import go_func, not_ported

ID = "HC-06"
TITLE = "Prometheus QueueManager.Stop races with reshard: close of closed channel"
SOURCE = "https://github.com/prometheus/prometheus/issues/5451 (fix PR #5460)"
KIND = "close of closed channel"
KINDS = (KIND,)
EXC_CLASS = None
DEPTH = 2
# The trigger is starvation (the reshard loop must stay unscheduled while the tick and Stop come):
# seconds of virtual time a runnable goroutine waits, which the harness default bound
# (docs/timing.md) rules out. This example keeps it reachable.
RUN_KW = {"check_leaks": True, "max_starvation_s": None}

SHARD_UPDATE_PERIOD = 10.0
STOP_AT = 10.5


class _Shards:
    @go_func("QueueManager.newShards", "queue_manager.go:528")
    def __init__(self):
        self.mtx = gosim.RWMutex("shards.mtx")
        self.soft_shutdown = None

    @go_func("shards.start", "queue_manager.go:556")
    def start(self, n):
        with self.mtx:  # :557
            self.soft_shutdown = gosim.Chan(name=f"softShutdown({n})")  # :569

    @go_func("shards.stop", "queue_manager.go:579")
    def stop(self):
        self.mtx.rlock()  # :584 a read lock: two stoppers are not excluded
        try:
            self.soft_shutdown.close()  # :585
        finally:
            self.mtx.runlock()  # :586


@not_ported("builds the scenario's main for one variant")
def _queue_manager(wait_before_stopping_shards: bool):
    @not_ported("scenario driver: QueueManager.Start, a config reload, then Stop's body inline")
    def main():
        shards = _Shards()
        quit_ = gosim.Chan(name="quit")
        reshard = gosim.Chan(name="reshardChan")
        wg = gosim.WaitGroup("qm.wg")
        qm = {"num_shards": 1}  # t.numShards
        shards.start(qm["num_shards"])

        @go_func("QueueManager.calculateDesiredShards", "queue_manager.go:438")
        def calculate_desired_shards():  # run by U
            num_shards = qm["num_shards"] + 1  # :490 the desired count changed (the rates are left out)
            # Resharding takes a while: when the reshard loop is not waiting, skip (no wait on quit).
            idx, _, _ = gosim.select(gosim.send_case(reshard, num_shards), default=True)  # :502
            if idx == 0:
                qm["num_shards"] = num_shards  # :505

        @go_func("QueueManager.updateShardsLoop", "queue_manager.go:423")
        def update_shards_loop():  # U
            ticker = gosim.new_ticker(SHARD_UPDATE_PERIOD)  # :426
            try:
                while True:
                    idx, _, _ = gosim.select(gosim.recv_case(ticker.c), gosim.recv_case(quit_))  # :429
                    if idx == 1:
                        return  # :433
                    calculate_desired_shards()  # :431
            finally:
                ticker.stop()  # :427
                wg.done()  # :424

        @go_func("QueueManager.reshardLoop", "queue_manager.go:511")
        def reshard_loop():  # L
            try:
                while True:
                    idx, n, _ = gosim.select(gosim.recv_case(quit_), gosim.recv_case(reshard))  # :515
                    if idx == 0:
                        return  # :523
                    shards.stop()  # :520
                    shards.start(n)  # :521
            finally:
                wg.done()  # :512

        wg.add(2)
        gosim.go(update_shards_loop, name="updateShardsLoop")
        gosim.go(reshard_loop, name="reshardLoop")
        gosim.sleep(STOP_AT)  # S: a config reload calls Stop
        quit_.close()
        if wait_before_stopping_shards:
            wg.wait()
            shards.stop()
        else:
            shards.stop()
            wg.wait()

    return main


buggy = _queue_manager(wait_before_stopping_shards=False)
fixed = _queue_manager(wait_before_stopping_shards=True)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
