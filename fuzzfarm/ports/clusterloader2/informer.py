"""The dynamic informer that feeds the measurement's handler, on the scripted cluster.

Upstream: kubernetes/perf-tests at 83e45df022ca,
``clusterloader2/pkg/measurement/util/informer/informer.go``: ``NewDynamicInformer`` with resync
period 0, ``addEventHandler`` (Add(obj) -> handler(nil, obj); Update(old, new) -> handler(old,
new); Delete(obj) -> handler(obj, nil), a ``DeletedFinalStateUnknown`` tombstone unwrapped
first), and ``StartAndSync`` (run the informer on its own goroutine, wait up to a timeout for
it to sync, stop the timeout timer on return).

Two goroutines, as in client-go's shared informer. The informer goroutine queues every event
in order: the initial LIST as Adds, then "synced", then the watch events, each at or after the
virtual time the API server committed it. The listener goroutine (client-go's
``processorListener``, with its unbounded pending buffer) calls the handler for each queued
event, in order. "Synced" means the initial LIST has been queued, not handled. So the
initial-list handler calls may run after ``StartAndSync`` has returned, as upstream. Events
that come due after ``stop_ch`` is closed are never queued, and events still queued then are
dropped (the listener stops with the informer; docs/ports/clusterloader2.md#p6). Upstream waits for sync by polling
``HasSynced`` every 100 ms. Here the informer closes a ``synced`` channel, which orders the
same way without the polling steps.
"""

from __future__ import annotations

from typing import Callable

from fuzzfarm.gosim import Chan, after, go, go_func, new_timer, now, recv_case, select
from fuzzfarm.gosim.context import GoError

from .cluster import ADDED, DELETED, FakeCluster, WatchEvent
from .objects import DeletedFinalStateUnknown

Handler = Callable[[object, object], None]


class Informer:
    """A shared informer over the cluster's objects with one event handler."""

    @go_func("informer.NewDynamicInformer", "informer.go:43")
    def __init__(self, cluster: FakeCluster, handler: Handler):
        self.cluster = cluster
        self.handler = handler
        self.synced = Chan(0, name="informer.synced")
        # processorListener's buffer never blocks the informer: room for every event there is
        self.pending = Chan(len(cluster.initial) + len(cluster.events) + 1, name="listener.pending")

    @go_func("informer.addEventHandler", "informer.go:61")
    def dispatch(self, ev: WatchEvent) -> None:
        """``addEventHandler``: map a watch event onto ``handler(old, new)``."""
        if ev.type == ADDED:
            self.handler(None, ev.obj)  # :66
        elif ev.type == DELETED:
            obj = ev.obj
            if isinstance(obj, DeletedFinalStateUnknown):
                obj = obj.obj
            self.handler(obj, None)  # :75 (:73 for a tombstone)
        else:
            self.handler(ev.old, ev.obj)  # :69

    @go_func("cache.processorListener.run", "shared_informer.go:765")
    def listen(self, stop_ch: Chan) -> None:
        """``processorListener.run``: hand each queued notification to the handler, in order,
        until the informer stops."""
        while True:
            i, ev, _ = select(recv_case(stop_ch), recv_case(self.pending))
            if i == 0:
                return
            self.dispatch(ev)

    @go_func("cache.sharedIndexInformer.Run", "shared_informer.go:368")
    def run(self, stop_ch: Chan) -> None:
        """``Run(stopCh)``: initial LIST, synced, then the watch, until ``stop_ch`` closes."""
        go(self.listen, stop_ch, name="informer listener")
        for obj in self.cluster.initial:
            self.pending.send(WatchEvent(now(), ADDED, obj))
        self.synced.close()
        for ev in self.cluster.events:
            wait = ev.at - now()
            if wait > 0:
                i, _, _ = select(recv_case(stop_ch), recv_case(after(wait)))
            else:
                i, _, _ = select(recv_case(stop_ch), default=True)
            if i == 0:
                return
            self.pending.send(ev)
        stop_ch.recv()


@go_func("informer.StartAndSync", "informer.go:82")
def start_and_sync(i: Informer, stop_ch: Chan, timeout: float) -> GoError | None:
    """``informer.StartAndSync``: start ``i`` and wait for it to sync, at most ``timeout``."""
    go(i.run, stop_ch, name="informer")  # :83
    timer = new_timer(timeout, name="informer sync timeout")
    try:
        idx, _, _ = select(recv_case(i.synced), recv_case(timer.c))  # :88, WaitForCacheSync
        if idx == 1:
            return GoError("timed out waiting for caches to sync")
        return None
    finally:
        timer.stop()
