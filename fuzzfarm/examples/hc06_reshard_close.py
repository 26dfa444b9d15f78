"""HC-06: Prometheus remote-write ``Stop()`` races with an in-flight reshard: close of closed channel.

prometheus/prometheus issue #5451, fixed by PR #5460 "Prevent reshard concurrent with calling
stop" (lock detail: PR #6827). U, the update-shards loop, ticks and offers a reshard request;
L, the reshard loop, stops the current shards (closes their soft-shutdown channel under the
*read* lock, then flushes them under the write lock) and starts new ones; S (``Stop``, here a
config reload at the moment of a shard update) closes quit, then stops the shards too. If L took
the request before S closed quit, S finds L flushing: its read lock waits for L's write lock,
and when L unlocks, the waiting reader goes first (an RWMutex hands the lock to the readers that
blocked during the write), so S closes the channel L already closed. In the other order S
closes first and L's close is the second one. No starvation is needed: the flush is a remote
write to a slow endpoint (``SEND_S`` virtual seconds).

Fixed: ``Stop`` closes quit and waits for the QueueManager goroutines (U and L) to exit before
stopping the shards, so stop and reshard never overlap.

Go lines: prometheus@1a9cdbd024fea05a1888c3164058087476cfdc3b storage/remote/queue_manager.go (the
parent of the fix, ef19ede14adbb601d9736369b517b20b446ffab7). ``main`` is the scenario: ``Start``
(:309), a config reload, then ``Stop``'s body (:320; buggy :324-327, fixed :324-329 at the fix).
The reshard request is ``calculateDesiredShards``' select (:502) with a ``default``: when the
reshard loop is not waiting in its select, the request is skipped, as upstream does; U never
waits for L. Left out: the rate arithmetic (every tick asks for one more shard), ``enqueue``
and the WAL watcher (each shard starts with one pending sample, which its last flush sends),
``runShard``'s batch timer and ``sendSamples``' retries (one request, cancelled by a hard
shutdown).
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
DEPTH = 1
RUN_KW = {"check_leaks": True}

CAPACITY = 10  # cfg.Capacity (the scenario enqueues nothing)
SHARD_UPDATE_PERIOD = 10.0  # shardUpdateDuration (queue_manager.go:48)
STOP_AT = 10.0  # a config reload calls Stop at the moment of a shard update
FLUSH_DEADLINE = 60.0  # the caller's flushDeadline (Prometheus' default: 1 minute)
SEND_S = 2.0  # a remote-write request to a slow endpoint: the shard's last flush


class _Shards:
    @go_func("QueueManager.newShards", "queue_manager.go:528")
    def __init__(self):
        self.mtx = gosim.RWMutex("shards.mtx")  # the shards struct's mtx field (queue_manager.go line 537)
        self.queues = []
        self.done = gosim.Chan(name="done")  # :531
        self.running = 0  # int32, changed with atomic.AddInt32 (one step)
        self.soft_shutdown = None
        self.hard_shutdown = None

    @go_func("shards.start", "queue_manager.go:556")
    def start(self, n):
        with self.mtx:  # :557
            new_queues = [gosim.Chan(CAPACITY, name=f"queue({n}.{i})") for i in range(n)]  # :560
            self.queues = new_queues  # :565
            hard_shutdown_ctx, self.hard_shutdown = gosim.with_cancel(gosim.background())  # :568
            self.soft_shutdown = gosim.Chan(name=f"softShutdown({n})")  # :569
            self.running = n  # :570
            self.done = gosim.Chan(name=f"done({n})")  # :571
            for i in range(n):  # :572
                gosim.go(self.run_shard, hard_shutdown_ctx, new_queues[i], name=f"runShard({n}.{i})")  # :573

    @go_func("shards.stop", "queue_manager.go:579")
    def stop(self):
        self.mtx.rlock()  # :584 a read lock: two stoppers are not excluded
        self.soft_shutdown.close()  # :585
        self.mtx.runlock()  # :586
        self.mtx.lock()  # :591
        try:
            for queue in self.queues:  # :593
                queue.close()  # :594
            idx, _, _ = gosim.select(gosim.recv_case(self.done), gosim.recv_case(gosim.after(FLUSH_DEADLINE)))  # :596
            if idx == 0:
                return  # :598
            self.hard_shutdown()  # :604 "Failed to flush all samples on shutdown"
            self.done.recv()  # :605
        finally:
            self.mtx.unlock()  # :592 defer

    @go_func("shards.runShard", "queue_manager.go:629")
    def run_shard(self, ctx, queue):
        try:
            pending = 1  # samples read from the queue and not yet sent (the enqueue side is left out)
            while True:
                idx, _, ok = gosim.select(gosim.recv_case(ctx.done()), gosim.recv_case(queue))  # :656
                if idx == 0:
                    return  # :658
                if not ok:  # :661 the queue is closed: flush what is pending, then exit
                    if pending:
                        self.send_samples(ctx)  # :664
                    return  # :668
        finally:
            self.running -= 1  # :631
            if self.running == 0:
                self.done.close()  # :632

    @go_func("shards.sendSamples", "queue_manager.go:699")
    def send_samples(self, ctx):
        # the remote-write request, cancelled by a hard shutdown
        gosim.select(gosim.recv_case(gosim.after(SEND_S)), gosim.recv_case(ctx.done()))


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
                    idx, n, _ = gosim.select(gosim.recv_case(reshard), gosim.recv_case(quit_))  # :515
                    if idx == 1:
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
