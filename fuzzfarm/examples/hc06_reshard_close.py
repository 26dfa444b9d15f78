"""HC-06: Prometheus remote-write ``Stop()`` races with an in-flight reshard: close of closed channel.

prometheus/prometheus issue #5451, fixed by PR #5460 "Prevent reshard concurrent with calling
stop" (lock detail: PR #6827). U, the update-shards loop, ticks and sends a reshard request;
L, the reshard loop, stops the current shards and starts new ones; S (``Stop``, e.g. a config
reload) closes quit, then stops the shards. The shards' stop closes their soft-shutdown
channel under a *read* lock only, which does not exclude another stopper: if the tick fires
shortly before Stop and L is already past its select, both close the same channel.

Fixed: ``Stop`` closes quit and waits for the QueueManager goroutines (U and L) to exit before
stopping the shards, so stop and reshard never overlap.
"""

from __future__ import annotations

from fuzzfarm import gosim

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
    def __init__(self):
        self.mtx = gosim.RWMutex("shards.mtx")
        self.soft_shutdown = None

    def start(self, n):
        with self.mtx:
            self.soft_shutdown = gosim.Chan(name=f"softShutdown({n})")

    def stop(self):
        self.mtx.rlock()  # a read lock: two stoppers are not excluded
        try:
            gosim.gosched()
            self.soft_shutdown.close()
        finally:
            self.mtx.runlock()


def _queue_manager(wait_before_stopping_shards: bool):
    def main():
        shards = _Shards()
        quit_ = gosim.Chan(name="quit")
        reshard = gosim.Chan(name="reshardChan")
        wg = gosim.WaitGroup("qm.wg")
        shards.start(1)

        def update_shards_loop():  # U
            ticker = gosim.new_ticker(SHARD_UPDATE_PERIOD)
            try:
                n = 1
                while True:
                    idx, _, _ = gosim.select(gosim.recv_case(ticker.c), gosim.recv_case(quit_))
                    if idx == 1:
                        return
                    n += 1  # desired shards changed
                    idx, _, _ = gosim.select(gosim.send_case(reshard, n), gosim.recv_case(quit_))
                    if idx == 1:
                        return
            finally:
                ticker.stop()
                wg.done()

        def reshard_loop():  # L
            try:
                while True:
                    idx, n, _ = gosim.select(gosim.recv_case(quit_), gosim.recv_case(reshard))
                    if idx == 0:
                        return
                    shards.stop()
                    shards.start(n)
            finally:
                wg.done()

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
