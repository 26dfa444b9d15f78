"""Go's ``sync.Cond``: wait / signal / broadcast on a condition, with any ``sync.Locker``.

``L`` is anything with ``lock()`` / ``unlock()``: a ``Mutex``, an ``RWMutex`` (write side) or
``RWMutex.rlocker()`` (read side). As in Go (``sync/cond.go``), ``wait`` takes a ticket on the
notify list *before* it unlocks ``L``, so a signal between the unlock and the park still wakes
it; ``signal`` wakes the oldest ticket, ``broadcast`` all of them; a woken waiter re-locks ``L``
before ``wait`` returns (competing with every other contender). Calling ``wait`` without
holding ``L`` unlocks an unlocked mutex: Go's fatal error, raised by ``L.unlock``.

Race detector: only the edges of ``L``. Go's ``-race`` sees no edge from ``Signal``/``Broadcast``
to the ``Wait`` it wakes: ``sync/cond.go`` has no race annotations and the runtime's notify list
(``runtime/sema.go``: ``notifyListNotifyOne``/``notifyListWait``) has none either, so a
signaller that writes without holding ``L`` races with the woken waiter's reads, and Go reports
it (tests/conformance: ``CondSignalWithoutL``). The copy check's CAS in each call orders only
the very first callers, with nothing any later call acquires: not modelled.
"""

from __future__ import annotations

from .runtime import current_runtime


class _Ticket:
    __slots__ = ("g", "woken")

    def __init__(self, g):
        self.g = g
        self.woken = False


class Cond:
    """``sync.NewCond(L)``. ``name`` labels it in traces and dumps (default ``Cond#<serial>``).
    Create it inside a run (raises RuntimeError otherwise)."""

    __slots__ = ("rt", "L", "label", "tickets")

    def __init__(self, L, name: str | None = None):
        if not (callable(getattr(L, "lock", None)) and callable(getattr(L, "unlock", None))):
            raise TypeError("sync.NewCond: L must have lock() and unlock() (a sync.Locker)")
        self.rt = current_runtime()
        self.L = L
        self.label = name or f"Cond#{self.rt.new_object_id()}"
        self.tickets: list[_Ticket] = []

    def wait(self) -> None:
        """Go: ``(*Cond).Wait``: unlock ``L``, sleep until signalled, lock ``L`` again. Wakes
        only by ``signal``/``broadcast`` (no spurious wake-ups in gosim; Go's callers loop on
        their condition anyway)."""
        rt = self.rt
        t = _Ticket(rt.cur)
        self.tickets.append(t)  # runtime_notifyListAdd, before L.Unlock
        self.L.unlock()
        if not t.woken:
            rt.park("sync.Cond.Wait", self.label)
        self.L.lock()

    def signal(self) -> None:
        """Go: ``(*Cond).Signal``: wake the longest-waiting goroutine, if any. A scheduling
        point (asynchronous preemption before the call)."""
        rt = self.rt
        rt.sched("cond.signal", self.label)
        if self.tickets:
            self._wake([self.tickets.pop(0)])

    def broadcast(self) -> None:
        """Go: ``(*Cond).Broadcast``: wake every waiting goroutine."""
        rt = self.rt
        rt.sched("cond.broadcast", self.label)
        if self.tickets:
            ts, self.tickets = self.tickets, []
            self._wake(ts)

    def _wake(self, tickets: list[_Ticket]) -> None:
        rt = self.rt
        for t in tickets:  # no race-detector edge: Go's notify list has no annotations
            t.woken = True
            rt.ready(t.g)
