"""Go's ``sync`` package: Mutex, RWMutex, WaitGroup, Once, under the deterministic scheduler.

Every lock/unlock/add/wait is a scheduling point. Mutex hand-off is never FIFO: an unlock
wakes every waiter and whichever goroutine the schedule runs first takes the lock, a woken
waiter or a later arrival (Go allows barging; its starvation mode, entered after a waiter
waited 1 ms of wall time, is not modelled).
"""

from __future__ import annotations

from typing import Callable

from . import failures as F
from . import race as _race
from .runtime import current_runtime


class Mutex:
    """``sync.Mutex``: not reentrant (a second ``lock`` by the holder blocks forever, as in
    Go); any goroutine may unlock; unlock of an unlocked mutex is fatal.

    ``name`` labels it in traces and dumps (default ``Mutex#<serial>``). Create it inside a
    run (raises RuntimeError otherwise). Usable as a context manager (lock/unlock).
    """

    __slots__ = ("rt", "label", "locked", "waiters", "hb", "holder")

    def __init__(self, name: str | None = None):
        self.rt = current_runtime()
        self.label = name or f"Mutex#{self.rt.new_object_id()}"
        self.locked = False
        self.waiters: list = []
        self.hb = None  # race detector: clock of the last unlock (race.py)
        self.holder = None  # the goroutine that locked it (Go keeps no owner; for the wait-for graph)

    def holders(self) -> list:
        """Goroutines a waiter for this mutex waits on (the deadlock's wait-for graph)."""
        return [self.holder] if self.locked and self.holder is not None else []

    def lock(self) -> None:
        """Block until the mutex is ours. Go: ``(*Mutex).Lock``. A scheduling point before
        the attempt; a woken waiter competes again with every other contender."""
        rt = self.rt
        rt.sched("lock", self.label)
        while self.locked:
            self.waiters.append(rt.cur)
            rt.cur.blocked_on = self
            rt.park("sync.Mutex.Lock", self.label)
        self.locked = True
        self.holder = rt.cur
        if rt.race is not None:
            rt.race.acquire(self.hb)  # unlock happens before the next lock

    def try_lock(self) -> bool:
        """Take the mutex if it is free; never blocks. Go: ``(*Mutex).TryLock``."""
        rt = self.rt
        rt.sched("trylock", self.label)
        if self.locked:
            return False
        self.locked = True
        self.holder = self.rt.cur
        if rt.race is not None:
            rt.race.acquire(self.hb)
        return True

    def unlock(self) -> None:
        """Release; every waiter becomes a contender. Go: ``(*Mutex).Unlock``. Raises
        UnlockOfUnlockedMutex (``fatal error: sync: unlock of unlocked mutex``)."""
        rt = self.rt
        if not self.locked:
            rt.fail(F.UnlockOfUnlockedMutex("sync: unlock of unlocked mutex"))
        if rt.race is not None:
            self.hb = rt.race.release()
        self.locked = False
        self.holder = None
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
    """``sync.RWMutex`` as Go implements it (``sync/rwmutex.go``).

    * Readers share. A writer first wins the writer slot (Go's internal ``w`` mutex: writers
      barge like Mutex), then *announces* itself, and from then on new ``rlock`` calls block
      (writer preference), then waits for the readers already inside to leave.
    * ``unlock`` hands the read lock to every reader that blocked during the write before any
      other writer can announce (Go adds them to ``readerCount`` before releasing ``w``).
    * A goroutine that takes the read lock again while a writer waits therefore deadlocks,
      as in Go.

    Unlock/RUnlock of an unlocked RWMutex are fatal (UnlockOfUnlockedMutex).
    """

    __slots__ = ("rt", "label", "readers", "writer", "wslot", "pending", "rwaiters", "wwaiters", "writer_g",
                 "hb_w", "hb_r", "wholder", "rholders")

    def __init__(self, name: str | None = None):
        self.rt = current_runtime()
        self.label = name or f"RWMutex#{self.rt.new_object_id()}"
        self.readers = 0          # goroutines holding the read lock (Go: readerCount - readerWait)
        self.writer = False       # a writer holds the lock
        self.wslot = False        # a writer holds Go's internal ``w`` mutex (announced or holding)
        self.pending = False      # the writer in the slot announced and waits for readers to drain
        self.rwaiters: list = []  # readers blocked by a writer (Go: readerSem)
        self.wwaiters: list = []  # writers waiting for the slot (Go: w.Lock)
        self.writer_g = None      # the announced writer waiting for readers (Go: writerSem)
        # race detector (race.py), as Go annotates rwmutex.go: Unlock releases readerSem
        # (acquired by RLock and Lock), RUnlock merges into writerSem (acquired by Lock)
        self.hb_w = None
        self.hb_r = None
        self.wholder = None       # the goroutine in the writer slot; ``rholders`` the readers inside
        self.rholders: list = []  # (Go keeps neither; they are the deadlock's wait-for graph)

    def holders(self) -> list:
        """Goroutines a waiter for this RWMutex waits on: the writer in the slot, and the
        readers inside (whom an announced writer waits for)."""
        out = [self.wholder] if self.wslot and self.wholder is not None else []
        return out + [g for g in self.rholders if g not in out]

    @property
    def writer_pending(self) -> bool:
        """True while a writer has announced itself and waits for readers (new readers block)."""
        obs = self.rt.observer
        if obs is not None:  # a read with no scheduling point: the reduction must see it
            obs.access("lock", self.label)
        return self.pending

    def rlock(self) -> None:
        """Take the read lock. Go: ``(*RWMutex).RLock``. Blocks while a writer holds the lock
        or has announced itself."""
        rt = self.rt
        rt.sched("rlock", self.label)
        if self.writer or self.pending:
            self.rwaiters.append(rt.cur)
            rt.cur.blocked_on = self
            rt.park("sync.RWMutex.RLock", self.label)  # woken holding the read lock
        else:
            self.readers += 1
            self.rholders.append(rt.cur)
        if rt.race is not None:
            rt.race.acquire(self.hb_w)

    def try_rlock(self) -> bool:
        """Go: ``(*RWMutex).TryRLock``."""
        rt = self.rt
        rt.sched("tryrlock", self.label)
        if self.writer or self.pending:
            return False
        self.readers += 1
        self.rholders.append(self.rt.cur)
        if rt.race is not None:
            rt.race.acquire(self.hb_w)
        return True

    def runlock(self) -> None:
        """Release the read lock. Go: ``(*RWMutex).RUnlock``; the last reader out wakes an
        announced writer. Raises UnlockOfUnlockedMutex (``sync: RUnlock of unlocked RWMutex``)."""
        rt = self.rt
        if self.readers <= 0:
            rt.fail(F.UnlockOfUnlockedMutex("sync: RUnlock of unlocked RWMutex"))
        if rt.race is not None:
            self.hb_r = rt.race.release_merge(self.hb_r)
        self.readers -= 1
        if self.rholders:
            self.rholders.remove(rt.cur if rt.cur in self.rholders else self.rholders[0])
        if self.readers == 0 and self.writer_g is not None:
            g, self.writer_g = self.writer_g, None
            rt.ready(g)
        rt.sched("runlock", self.label)

    def lock(self) -> None:
        """Take the write lock. Go: ``(*RWMutex).Lock``."""
        rt = self.rt
        rt.sched("lock", self.label)
        while self.wslot:
            self.wwaiters.append(rt.cur)
            rt.cur.blocked_on = self
            rt.park("sync.RWMutex.Lock", self.label)
        self.wslot = True
        self.wholder = rt.cur
        if self.readers:
            self.pending = True
            self.writer_g = rt.cur
            rt.cur.blocked_on = self
            rt.park("sync.RWMutex.Lock (waiting for readers)", self.label)
            self.pending = False
        self.writer = True
        if rt.race is not None:
            rt.race.acquire(self.hb_w)
            rt.race.acquire(self.hb_r)

    def try_lock(self) -> bool:
        """Go: ``(*RWMutex).TryLock``."""
        rt = self.rt
        rt.sched("trylock", self.label)
        if self.wslot or self.readers:
            return False
        self.wslot = True
        self.wholder = self.rt.cur
        self.writer = True
        if rt.race is not None:
            rt.race.acquire(self.hb_w)
            rt.race.acquire(self.hb_r)
        return True

    def unlock(self) -> None:
        """Release the write lock. Go: ``(*RWMutex).Unlock``: blocked readers get the read
        lock first, then the writer slot is released (any waiting writer may win it). Raises
        UnlockOfUnlockedMutex (``sync: Unlock of unlocked RWMutex``)."""
        rt = self.rt
        if not self.writer:
            rt.fail(F.UnlockOfUnlockedMutex("sync: Unlock of unlocked RWMutex"))
        if rt.race is not None:
            self.hb_w = rt.race.release()
        self.writer = False
        if self.rwaiters:
            rs, self.rwaiters = self.rwaiters, []
            self.readers += len(rs)
            self.rholders.extend(rs)
            for g in rs:
                rt.ready(g)
        self.wslot = False
        self.wholder = None
        if self.wwaiters:
            ws, self.wwaiters = self.wwaiters, []
            for g in ws:
                rt.ready(g)
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
    """Go's ``rlocker``: a ``sync.Locker`` whose Lock/Unlock are RLock/RUnlock."""

    __slots__ = ("rw",)

    def __init__(self, rw: RWMutex):
        self.rw = rw

    def lock(self) -> None:
        """``RLock`` of the RWMutex."""
        self.rw.rlock()

    def unlock(self) -> None:
        """``RUnlock`` of the RWMutex."""
        self.rw.runlock()

    def __enter__(self):
        self.rw.rlock()
        return self

    def __exit__(self, *exc):
        self.rw.runlock()


class WaitGroup:
    """``sync.WaitGroup`` with both of Go's misuse panics.

    * ``add`` making the counter negative raises NegativeWaitGroupCounter
      (``sync: negative WaitGroup counter``).
    * A waiter released by the counter reaching zero re-checks the counter when it resumes;
      if an ``add`` landed in between it raises WaitGroupReuse ("sync: WaitGroup is reused
      before previous Wait has returned"), exactly where Go panics.
    """

    __slots__ = ("rt", "label", "counter", "waiters", "hb", "sema")

    def __init__(self, name: str | None = None):
        self.rt = current_runtime()
        self.label = name or f"WaitGroup#{self.rt.new_object_id()}"
        self.counter = 0
        self.waiters: list = []
        self.hb = None  # race detector: every Done merges in, Wait acquires (Go's waitgroup.go)
        self.sema = None  # race detector: Go's checked wg.sema (Add from zero reads, first Wait writes)

    def add(self, delta: int) -> None:
        """Go: ``(*WaitGroup).Add``. At zero, releases every waiter. Raises
        NegativeWaitGroupCounter when the counter would go below zero."""
        rt = self.rt
        rt.sched("wg.add", f"{self.label} {delta:+d}")
        v = self.counter + delta
        if v < 0:
            rt.fail(F.NegativeWaitGroupCounter("sync: negative WaitGroup counter"))
        if rt.race is not None:
            if delta < 0:
                self.hb = rt.race.release_merge(self.hb)
            elif delta > 0 and v == delta:
                # Go: "the first increment must be synchronized with Wait" (race.Read(&wg.sema))
                _race.wg_sema(rt.race, self, False)
        self.counter = v
        if v == 0 and self.waiters:
            ws, self.waiters = self.waiters, []
            for g in ws:
                rt.ready(g)

    def done(self) -> None:
        """Go: ``(*WaitGroup).Done`` (= ``add(-1)``)."""
        self.add(-1)

    def wait(self) -> None:
        """Go: ``(*WaitGroup).Wait``: block until the counter is zero. Raises WaitGroupReuse
        when, on resuming, the counter is no longer zero."""
        rt = self.rt
        rt.sched("wg.wait", self.label)
        if self.counter == 0:
            if rt.race is not None:
                rt.race.acquire(self.hb)
            return
        if rt.race is not None and not self.waiters:
            _race.wg_sema(rt.race, self, True)  # Go: the first waiter's race.Write(&wg.sema)
        self.waiters.append(rt.cur)
        rt.park("sync.WaitGroup.Wait", self.label)
        if self.counter != 0:
            rt.fail(F.WaitGroupReuse("sync: WaitGroup is reused before previous Wait has returned"))
        if rt.race is not None:
            rt.race.acquire(self.hb)

    def go(self, fn: Callable, *args) -> None:
        """Go 1.25 ``WaitGroup.Go``: add(1), then run fn in a new goroutine that calls done."""
        from .api import go

        self.add(1)

        def body():
            try:
                fn(*args)
            finally:
                self.done()

        go(body, name=getattr(fn, "__qualname__", "fn").replace("<locals>.", ""))


class Once:
    """``sync.Once``: ``do(f)`` runs f once; concurrent callers wait until it has returned.
    If f panics, Once still counts it as done (Go's deferred ``done.Store(1)``)."""

    __slots__ = ("m", "done", "hb")

    def __init__(self, name: str | None = None):
        self.m = Mutex(name)
        self.done = False
        self.hb = None  # race detector: Go's done.Store(1) after f, acquired by every done.Load()

    def do(self, f: Callable[[], None]) -> None:
        """Go: ``(*Once).Do``."""
        rt = self.m.rt
        if self.done:
            rt.sched("once", self.m.label)
            if rt.race is not None:
                rt.race.acquire(self.hb)
            return
        with self.m:
            if not self.done:
                try:
                    f()
                finally:
                    self.done = True
                    if rt.race is not None:
                        self.hb = rt.race.release()
            elif rt.race is not None:
                rt.race.acquire(self.hb)
