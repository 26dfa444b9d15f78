"""Go's ``sync`` package: Mutex, RWMutex, WaitGroup, Once, under the deterministic scheduler.

Every lock/unlock/add/wait is a scheduling point. Hand-off is never FIFO: an unlock wakes
every waiter and whichever the schedule runs first takes the lock (Go allows barging).
"""

from __future__ import annotations

from typing import Callable

from . import failures as F
from .runtime import current_runtime


class Mutex:
    """``sync.Mutex``: not reentrant; unlock of an unlocked mutex is fatal; any goroutine may unlock."""

    __slots__ = ("rt", "label", "locked", "waiters")

    def __init__(self, name: str | None = None):
        self.rt = current_runtime()
        self.label = name or f"Mutex#{self.rt.new_object_id()}"
        self.locked = False
        self.waiters: list = []

    def lock(self) -> None:
        """Block until the mutex is ours. Go: ``(*Mutex).Lock``."""
        rt = self.rt
        rt.sched("lock", self.label)
        while self.locked:
            self.waiters.append(rt.cur)
            rt.park("sync.Mutex.Lock", self.label)
        self.locked = True

    def try_lock(self) -> bool:
        """Go: ``(*Mutex).TryLock``."""
        self.rt.sched("trylock", self.label)
        if self.locked:
            return False
        self.locked = True
        return True

    def unlock(self) -> None:
        """Release; every waiter becomes a contender. Raises UnlockOfUnlockedMutex (fatal)."""
        rt = self.rt
        if not self.locked:
            rt.fail(F.UnlockOfUnlockedMutex("sync: unlock of unlocked mutex"))
        self.locked = False
        if self.waiters:
            ws, self.waiters = self.waiters, []
            for g in ws:
                rt.ready(g)
        rt.sched("unlock", self.label)

    def __enter__(self) -> "Mutex":
        self.lock()
        return self

    def __exit__(self, *exc) -> None:
        self.unlock()


class RWMutex:
    """``sync.RWMutex`` with Go's writer preference: once a writer waits, new readers block.

    A reader that re-acquires the read lock while a writer waits therefore deadlocks, as in Go.
    """

    __slots__ = ("rt", "label", "readers", "writer", "writer_pending", "waiters")

    def __init__(self, name: str | None = None):
        self.rt = current_runtime()
        self.label = name or f"RWMutex#{self.rt.new_object_id()}"
        self.readers = 0
        self.writer = False
        self.writer_pending = False
        self.waiters: list = []

    def _wake_all(self) -> None:
        if self.waiters:
            ws, self.waiters = self.waiters, []
            for g in ws:
                self.rt.ready(g)

    def rlock(self) -> None:
        rt = self.rt
        rt.sched("rlock", self.label)
        while self.writer or self.writer_pending:
            self.waiters.append(rt.cur)
            rt.park("sync.RWMutex.RLock", self.label)
        self.readers += 1

    def runlock(self) -> None:
        rt = self.rt
        if self.readers <= 0:
            rt.fail(F.UnlockOfUnlockedMutex("sync: RUnlock of unlocked RWMutex"))
        self.readers -= 1
        if self.readers == 0:
            self._wake_all()
        rt.sched("runlock", self.label)

    def lock(self) -> None:
        rt = self.rt
        rt.sched("lock", self.label)
        # First win the writer slot (Go's internal w mutex), then announce and wait for readers.
        while self.writer or self.writer_pending:
            self.waiters.append(rt.cur)
            rt.park("sync.RWMutex.Lock", self.label)
        self.writer_pending = True
        while self.readers:
            self.waiters.append(rt.cur)
            rt.park("sync.RWMutex.Lock (readers draining)", self.label)
        self.writer_pending = False
        self.writer = True

    def unlock(self) -> None:
        rt = self.rt
        if not self.writer:
            rt.fail(F.UnlockOfUnlockedMutex("sync: Unlock of unlocked RWMutex"))
        self.writer = False
        self._wake_all()
        rt.sched("unlock", self.label)

    def __enter__(self) -> "RWMutex":
        self.lock()
        return self

    def __exit__(self, *exc) -> None:
        self.unlock()

    def rlocker(self) -> "_RLocker":
        """A context manager taking the read side (Go: ``RLocker``)."""
        return _RLocker(self)


class _RLocker:
    __slots__ = ("rw",)

    def __init__(self, rw: RWMutex):
        self.rw = rw

    def __enter__(self):
        self.rw.rlock()
        return self

    def __exit__(self, *exc):
        self.rw.runlock()


class WaitGroup:
    """``sync.WaitGroup`` with both of Go's misuse panics.

    * ``add`` making the counter negative raises NegativeWaitGroupCounter.
    * A waiter released by the counter reaching zero re-checks the counter when it resumes;
      if an ``add`` landed in between it raises WaitGroupReuse ("WaitGroup is reused before
      previous Wait has returned"), exactly where Go panics.
    """

    __slots__ = ("rt", "label", "counter", "waiters")

    def __init__(self, name: str | None = None):
        self.rt = current_runtime()
        self.label = name or f"WaitGroup#{self.rt.new_object_id()}"
        self.counter = 0
        self.waiters: list = []

    def add(self, delta: int) -> None:
        rt = self.rt
        rt.sched("wg.add", f"{self.label} {delta:+d}")
        v = self.counter + delta
        if v < 0:
            rt.fail(F.NegativeWaitGroupCounter("sync: negative WaitGroup counter"))
        self.counter = v
        if v == 0 and self.waiters:
            ws, self.waiters = self.waiters, []
            for g in ws:
                rt.ready(g)

    def done(self) -> None:
        self.add(-1)

    def wait(self) -> None:
        rt = self.rt
        rt.sched("wg.wait", self.label)
        if self.counter == 0:
            return
        self.waiters.append(rt.cur)
        rt.park("sync.WaitGroup.Wait", self.label)
        if self.counter != 0:
            rt.fail(F.WaitGroupReuse("sync: WaitGroup is reused before previous Wait has returned"))

    def go(self, fn: Callable, *args) -> None:
        """Go 1.25 ``WaitGroup.Go``: add(1), then run fn in a new goroutine that calls done."""
        from .api import go

        self.add(1)

        def body():
            try:
                fn(*args)
            finally:
                self.done()

        go(body, name=getattr(fn, "__qualname__", "fn"))


class Once:
    """``sync.Once``: ``do(f)`` runs f once; concurrent callers wait until it has returned."""

    __slots__ = ("m", "done")

    def __init__(self, name: str | None = None):
        self.m = Mutex(name)
        self.done = False

    def do(self, f: Callable[[], None]) -> None:
        if self.done:
            self.m.rt.sched("once", self.m.label)
            return
        with self.m:
            if not self.done:
                try:
                    f()
                finally:
                    self.done = True
