"""Go's ``sync/atomic`` typed values: Int32, Int64, Uint32, Uint64, Bool, Value, Pointer.

Each operation is one indivisible step, preceded by a scheduling point (Go can preempt a
goroutine asynchronously right before the atomic instruction). Integers wrap around as Go's
fixed-size integers do. Atomics never race with each other. For the race detector they are
synchronisation, as ThreadSanitizer's Go interface treats them: ``load`` acquires, ``store``
releases (the location's clock becomes the storer's), read-modify-writes (``add``, ``swap``,
``and_``, ``or_``, a successful ``compare_and_swap``) acquire and release, a failed
``compare_and_swap`` acquires. So a store observed by a load happens before it (Go's memory
model: atomics are sequentially consistent, an observed write is synchronized before the read).

``Value`` keeps Go's panics (raised as RuntimeError with Go's text): storing ``None`` (Go's
nil), or a value of another type than the first one stored.
"""

from __future__ import annotations

from typing import Any

from .gopanic import go_panic
from .runtime import current_runtime


class _Atomic:
    __slots__ = ("rt", "label", "v", "hb")
    _kind = "atomic"

    def __init__(self, value: Any = None, name: str | None = None):
        self.rt = current_runtime()
        self.label = name or f"{self._kind}#{self.rt.new_object_id()}"
        self.v = value
        self.hb = None

    def __repr__(self) -> str:
        return f"{self.label}({self.v!r})"

    # the happens-before effects (race.py); each is called right after the scheduling point
    def _acq(self) -> None:
        r = self.rt.race
        if r is not None:
            r.acquire(self.hb)

    def _rel(self) -> None:
        r = self.rt.race
        if r is not None:
            self.hb = r.release()

    def _acq_rel(self) -> None:
        r = self.rt.race
        if r is not None:
            g = self.rt.cur.gid
            self.hb = r.release_acquire(g, self.hb)

    def _load(self) -> Any:
        self.rt.sched("atomic.load", self.label)
        self._acq()
        return self.v

    def _store(self, v: Any) -> None:
        self.rt.sched("atomic.store", self.label)
        self._rel()
        self.v = v

    def _swap(self, v: Any) -> Any:
        self.rt.sched("atomic.swap", self.label)
        self._acq_rel()
        old, self.v = self.v, v
        return old

    def _cas(self, old: Any, new: Any) -> bool:
        self.rt.sched("atomic.cas", self.label)
        if self.v == old:
            self._acq_rel()
            self.v = new
            return True
        self._acq()
        return False


class _Int(_Atomic):
    __slots__ = ()
    _bits = 64
    _signed = True

    def __init__(self, value: int = 0, name: str | None = None):
        super().__init__(self._wrap(value), name)

    @classmethod
    def _wrap(cls, v: int) -> int:
        m = 1 << cls._bits
        v %= m
        if cls._signed and v >= m >> 1:
            v -= m
        return v

    def load(self) -> int:
        """Go: ``Load``."""
        return self._load()

    def store(self, v: int) -> None:
        """Go: ``Store``."""
        self._store(self._wrap(v))

    def swap(self, v: int) -> int:
        """Go: ``Swap``: store ``v``, return the old value."""
        return self._swap(self._wrap(v))

    def compare_and_swap(self, old: int, new: int) -> bool:
        """Go: ``CompareAndSwap``."""
        return self._cas(self._wrap(old), self._wrap(new))

    def add(self, delta: int) -> int:
        """Go: ``Add``: the new value (wrapping around)."""
        self.rt.sched("atomic.add", self.label)
        self._acq_rel()
        self.v = self._wrap(self.v + delta)
        return self.v

    def and_(self, mask: int) -> int:
        """Go 1.23 ``And``: the old value."""
        self.rt.sched("atomic.and", self.label)
        self._acq_rel()
        old, self.v = self.v, self._wrap(self.v & mask)
        return old

    def or_(self, mask: int) -> int:
        """Go 1.23 ``Or``: the old value."""
        self.rt.sched("atomic.or", self.label)
        self._acq_rel()
        old, self.v = self.v, self._wrap(self.v | mask)
        return old


class Int32(_Int):
    """``atomic.Int32``."""
    __slots__ = ()
    _bits, _signed, _kind = 32, True, "atomic.Int32"


class Int64(_Int):
    """``atomic.Int64``."""
    __slots__ = ()
    _bits, _signed, _kind = 64, True, "atomic.Int64"


class Uint32(_Int):
    """``atomic.Uint32``."""
    __slots__ = ()
    _bits, _signed, _kind = 32, False, "atomic.Uint32"


class Uint64(_Int):
    """``atomic.Uint64``."""
    __slots__ = ()
    _bits, _signed, _kind = 64, False, "atomic.Uint64"


class Bool(_Atomic):
    """``atomic.Bool``."""
    __slots__ = ()
    _kind = "atomic.Bool"

    def __init__(self, value: bool = False, name: str | None = None):
        super().__init__(bool(value), name)

    def load(self) -> bool:
        """Go: ``Load``."""
        return self._load()

    def store(self, v: bool) -> None:
        """Go: ``Store``."""
        self._store(bool(v))

    def swap(self, v: bool) -> bool:
        """Go: ``Swap``."""
        return self._swap(bool(v))

    def compare_and_swap(self, old: bool, new: bool) -> bool:
        """Go: ``CompareAndSwap``."""
        return self._cas(bool(old), bool(new))


class Pointer(_Atomic):
    """``atomic.Pointer[T]``: any object or None (nil)."""
    __slots__ = ()
    _kind = "atomic.Pointer"

    def load(self) -> Any:
        """Go: ``Load`` (None for nil)."""
        return self._load()

    def store(self, v: Any) -> None:
        """Go: ``Store``."""
        self._store(v)

    def swap(self, v: Any) -> Any:
        """Go: ``Swap``."""
        return self._swap(v)

    def compare_and_swap(self, old: Any, new: Any) -> bool:
        """Go: ``CompareAndSwap`` (pointer identity, as Go compares pointers)."""
        self.rt.sched("atomic.cas", self.label)
        if self.v is old:
            self._acq_rel()
            self.v = new
            return True
        self._acq()
        return False


class Value(_Atomic):
    """``atomic.Value``: ``load`` is None until the first ``store``; every stored value must
    have the type of the first (Go panics otherwise) and must not be None."""
    __slots__ = ()
    _kind = "atomic.Value"

    def __init__(self, name: str | None = None):
        super().__init__(None, name)

    def _check(self, v: Any, op: str) -> None:
        if v is None:
            raise go_panic(RuntimeError, f"sync/atomic: {op} of nil value into Value")
        if self.v is not None and type(v) is not type(self.v):
            raise go_panic(RuntimeError, f"sync/atomic: {op} of inconsistently typed value into Value")

    def load(self) -> Any:
        """Go: ``Load``."""
        return self._load()

    def store(self, v: Any) -> None:
        """Go: ``Store``. RuntimeError (Go's panic) for None or a value of another type."""
        self.rt.sched("atomic.store", self.label)
        self._check(v, "store")
        self._rel()
        self.v = v

    def swap(self, v: Any) -> Any:
        """Go: ``Swap``: the old value (None if none)."""
        self.rt.sched("atomic.swap", self.label)
        self._check(v, "swap")
        self._acq_rel()
        old, self.v = self.v, v
        return old

    def compare_and_swap(self, old: Any, new: Any) -> bool:
        """Go: ``CompareAndSwap`` (values compared with ``==``, as Go compares interfaces)."""
        self.rt.sched("atomic.cas", self.label)
        if new is None:
            raise go_panic(RuntimeError, "sync/atomic: compare and swap of nil value into Value")
        if old is not None and type(old) is not type(new):
            raise go_panic(RuntimeError, "sync/atomic: compare and swap of inconsistently typed values")
        if self.v is not None and type(new) is not type(self.v):
            raise go_panic(RuntimeError, "sync/atomic: compare and swap of inconsistently typed value into Value")
        if self.v == old:
            self._acq_rel()
            self.v = new
            return True
        self._acq()
        return False
