"""The measurement's event queue: client-go's FIFO workqueue drained by a fixed set of workers.

Upstream: kubernetes/perf-tests at 83e45df022ca,
``clusterloader2/pkg/measurement/util/workerqueue/workerqueue.go`` (New 38-46, Add 49-51,
Stop 54-57, worker 59-68) over client-go v0.22.15 ``util/workqueue`` ``Type``:

* ``add`` under the queue's lock: dropped silently once shut down, else appended and one
  waiting ``get`` is signalled;
* ``get`` blocks while the queue is empty and not shut down; after ``shut_down`` it keeps
  handing out what is left and reports shutdown only once the queue is empty, so ``stop``
  still runs every event queued before it;
* ``shut_down`` sets the flag and wakes every waiter (v0.22 has no drain-wait of its own).

client-go also de-duplicates items (its ``dirty``/``processing`` sets). The measurement adds
a fresh closure per event, so those sets never match and are left out.
"""

from __future__ import annotations

from collections import deque
from typing import Callable

from fuzzfarm.gosim import Chan, Mutex, go_func, not_ported

from .handling_group import Group


class _Cond:
    """``sync.Cond`` on a gosim Mutex: ``wait`` enqueues itself before releasing the lock."""

    @not_ported("sync.NewCond, Go's standard library: the ports pin no Go release, so no file.go:line")
    def __init__(self, lock: Mutex):
        self.L = lock
        self.waiters: deque[Chan] = deque()

    @not_ported("sync.Cond.Wait, Go's standard library: the ports pin no Go release, so no file.go:line")
    def wait(self) -> None:
        ch = Chan(1, name="cond.wait")
        self.waiters.append(ch)
        self.L.unlock()
        ch.recv()
        self.L.lock()

    @not_ported("sync.Cond.Signal, Go's standard library: the ports pin no Go release, so no file.go:line")
    def signal(self) -> None:
        if self.waiters:
            self.waiters.popleft().send(None)  # buffered: never blocks

    @not_ported("sync.Cond.Broadcast, Go's standard library: the ports pin no Go release, so no file.go:line")
    def broadcast(self) -> None:
        ws, self.waiters = self.waiters, deque()
        for ch in ws:
            ch.send(None)


class Queue:
    """client-go ``workqueue.Type`` (FIFO)."""

    @go_func("workqueue.New", "queue.go:36")
    def __init__(self, name: str = "workqueue"):
        self.cond = _Cond(Mutex(f"{name}.cond.L"))
        self.queue: deque = deque()
        self.shutting_down = False

    @go_func("workqueue.Type.Add", "queue.go:114")
    def add(self, item) -> None:
        with self.cond.L:  # :115
            if self.shutting_down:  # :117
                return
            self.queue.append(item)
            self.cond.signal()  # :132

    @go_func("workqueue.Type.Get", "queue.go:147")
    def get(self):
        """``(item, shutdown)``."""
        with self.cond.L:
            while not self.queue and not self.shutting_down:
                self.cond.wait()  # :151
            if not self.queue:
                return None, True  # :155
            return self.queue.popleft(), False

    @go_func("workqueue.Type.Done", "queue.go:174")
    def done(self, item) -> None:
        with self.cond.L:
            pass  # processing/dirty bookkeeping only (see the module docstring)

    @go_func("workqueue.Type.ShutDown", "queue.go:190")
    def shut_down(self) -> None:
        with self.cond.L:
            self.shutting_down = True  # :193
            self.cond.broadcast()  # :194

    @go_func("workqueue.Type.Len", "queue.go:138")
    def __len__(self) -> int:
        return len(self.queue)


class WorkerQueue:
    """``workerqueue.WorkerQueue``: ``size`` workers started at construction."""

    @go_func("workerqueue.NewWorkerQueue", "workerqueue.go:38")
    def __init__(self, size: int, name: str = "worker"):
        self.queue = Queue()
        self.worker_group = Group("workerGroup")
        for i in range(size):
            self.worker_group.start(self.worker, name=name if size == 1 else f"{name}-{i}")  # :43

    @go_func("workerqueue.WorkerQueue.Add", "workerqueue.go:49")
    def add(self, f: Callable[[], None]) -> None:
        self.queue.add(f)

    @go_func("workerqueue.WorkerQueue.Stop", "workerqueue.go:54")
    def stop(self) -> None:
        """Shut the queue down, then wait for the workers to drain it and exit."""
        self.queue.shut_down()
        self.worker_group.wait()

    @go_func("workerqueue.WorkerQueue.worker", "workerqueue.go:59")
    def worker(self) -> None:
        while True:
            f, stop = self.queue.get()
            if stop:
                return
            f()  # :65
            self.queue.done(f)  # :66
