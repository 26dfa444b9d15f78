"""Pointers to non-struct memory and the ``sync/atomic`` functions on it, for generated ports
(re-exported by ``rt``; docs/PORT.md, "Pointers").

A Go pointer to a variable, a struct field or a slice element is, in a port, a reference to
the race-checked cell the direct name uses: a variable whose address is taken is a
``gosim.Var`` (as a captured one is), ``&s.f`` a :class:`FieldPtr` to the ``gosim.Shared``
field, ``&xs[i]`` an :class:`ElemPtr` to the element of the backing array. All three have
``load()`` / ``store(v)`` (``*p``, ``*p = v``: checked accesses of that same cell, so ``-race``'s
report is found whichever way the memory is reached). One cell has one pointer object (cached
on the struct or the array), so ``p == q`` is ``p is q`` as for every other pointer. nil is
``None``: ``*p`` of it is an ``AttributeError`` on ``NoneType``, which gosim reports with Go's
``invalid memory address or nil pointer dereference``.

``atomic_add(p, ...)`` and the others are ``atomic.AddInt32(&x, 1)`` and its family: one
scheduling point, then one indivisible step, with the typed atomics' happens-before effects
(a load acquires, a store releases, a read-modify-write does both, a failed
compare-and-swap acquires: ``gosim.atomic``) on the cell's own synchronisation clock, and the
access checked as ThreadSanitizer checks an atomic one (``race.RaceDetector.atomic_access``:
it races with a plain access that is not ordered with it, never with another atomic one).
Integers wrap at the function's width.
"""

from __future__ import annotations

import sys

from fuzzfarm import gosim
from fuzzfarm.gosim import race as _race
from fuzzfarm.gosim import runtime as _runtime
from fuzzfarm.gosim.gopanic import go_panic


class FieldPtr:
    """``&obj.f`` of a non-struct field (a ``gosim.Shared``): reads and writes go through the
    field itself (the same race location, the same scheduling point)."""

    __slots__ = ("obj", "field")

    def __init__(self, obj, field: str):
        self.obj, self.field = obj, field

    def __repr__(self) -> str:
        return f"&{type(self.obj).__name__}.{self.field}"

    def load(self):
        return getattr(self.obj, self.field)

    def store(self, v) -> None:
        setattr(self.obj, self.field, v)

    # the cell as the atomic functions see it (no access of its own)
    @property
    def name(self) -> str:
        return f"{type(self.obj).__name__}.{self.field}"

    @property
    def loc(self) -> _race.Loc:
        return getattr(type(self.obj), self.field)._loc(self.obj)

    @property
    def value(self):
        return self.obj.__dict__.get(self.field, getattr(type(self.obj), self.field).default)

    @value.setter
    def value(self, v) -> None:
        self.obj.__dict__[self.field] = v


def field_ptr(obj, field: str) -> FieldPtr:
    """``&obj.f``: the field's one pointer object (a nil ``obj`` panics, as Go's nil check)."""
    d = obj.__dict__
    key = "__ptr__" + field
    p = d.get(key)
    if p is None:
        p = d[key] = FieldPtr(obj, field)
    return p


class ElemPtr:
    """``&xs[i]``: element ``j`` of the backing array ``a`` (race-checked as ``xs[i]`` is)."""

    __slots__ = ("a", "j")

    def __init__(self, a, j: int):
        self.a, self.j = a, j

    def __repr__(self) -> str:
        return f"&{self.name}"

    def _access(self, write: bool) -> None:
        rt_ = _runtime._rt
        if rt_ is None:
            return
        rt_.sched("write" if write else "read", self.name)
        r = rt_.race if rt_.race is not None else _race.detector(rt_)
        if r is not None:
            (r.write if write else r.read)(self.loc, sys._getframe(2))

    def load(self):
        self._access(False)
        return self.a[self.j]

    def store(self, v) -> None:
        self._access(True)
        self.a[self.j] = v

    @property
    def name(self) -> str:
        a = self.a
        if a.label is None:
            rt_ = _runtime._rt
            a.label = f"slice#{rt_.new_object_id()}" if rt_ is not None else "slice"
        return f"{a.label}[{self.j}]"

    @property
    def loc(self) -> _race.Loc:
        loc = self.a.locs.get(self.j)
        if loc is None:
            loc = self.a.locs[self.j] = _race.Loc(self.name)
        return loc

    @property
    def value(self):
        return self.a[self.j]

    @value.setter
    def value(self, v) -> None:
        self.a[self.j] = v


def elem_ptr(s, i: int) -> ElemPtr:
    """``&s[i]`` of a slice: bounds-checked as Go does (index out of range panics here)."""
    n = 0 if s is None else len(s)
    if i < 0 or i >= n:
        if i < 0:
            raise go_panic(IndexError, f"runtime error: index out of range [{i}]")
        raise go_panic(IndexError, f"runtime error: index out of range [{i}] with length {n}")
    a, j = s.a, s.off + i
    p = a.ptrs.get(j)
    if p is None:
        p = a.ptrs[j] = ElemPtr(a, j)
    return p


def new_cell(label: str, zero) -> gosim.Var:
    """``new(T)`` of a non-struct T: a fresh race-checked cell holding T's zero value."""
    return gosim.Var(label, zero)


# --- sync/atomic's functions on a pointer ------------------------------------------------------

def _wrap(v: int, bits: int, signed: bool) -> int:
    m = 1 << bits
    v %= m
    if signed and v >= m >> 1:
        v -= m
    return v


def _begin(p, op: str):
    """The scheduling point of atomic ``op`` on ``*p``, then (detector, Atomics) or (None, None)."""
    name = p.name  # a nil p: Go's nil pointer dereference, here an AttributeError on None
    rt_ = _runtime._rt
    if rt_ is None:
        return None, None
    rt_.sched(op, name)
    r = rt_.race if rt_.race is not None else _race.detector(rt_)
    if r is None:
        return None, None
    return r, _race.atomics(r, p.loc)


def atomic_load(p):
    """``atomic.LoadT(p)``: acquire, then the (atomic) read."""
    r, a = _begin(p, "atomic.load")
    if r is not None:
        r.acquire(a.hb)
        r.atomic_access(p.loc, False, sys._getframe(1))
    return p.value


def atomic_store(p, v, bits: int = 64, signed: bool = True) -> None:
    """``atomic.StoreT(p, v)``: the (atomic) write, then release."""
    r, a = _begin(p, "atomic.store")
    if r is not None:
        r.atomic_access(p.loc, True, sys._getframe(1))
        a.hb = r.release()
    p.value = _wrap(v, bits, signed) if bits else v


def _rmw(p, op: str, f):
    r, a = _begin(p, op)
    if r is not None:
        r.atomic_access(p.loc, True, sys._getframe(2))
        a.hb = r.release_acquire(r.rt.cur.gid, a.hb)
    old = p.value
    p.value = f(old)
    return old


def atomic_add(p, delta: int, bits: int, signed: bool) -> int:
    """``atomic.AddT(p, delta)``: the new value, wrapped at the width."""
    old = _rmw(p, "atomic.add", lambda v: _wrap(v + delta, bits, signed))
    return _wrap(old + delta, bits, signed)


def atomic_swap(p, new, bits: int = 64, signed: bool = True):
    """``atomic.SwapT(p, new)``: the old value."""
    return _rmw(p, "atomic.swap", lambda v: _wrap(new, bits, signed) if bits else new)


def atomic_and(p, mask: int, bits: int, signed: bool) -> int:
    """``atomic.AndT(p, mask)`` (Go 1.23): the old value."""
    return _rmw(p, "atomic.and", lambda v: _wrap(v & mask, bits, signed))


def atomic_or(p, mask: int, bits: int, signed: bool) -> int:
    """``atomic.OrT(p, mask)`` (Go 1.23): the old value."""
    return _rmw(p, "atomic.or", lambda v: _wrap(v | mask, bits, signed))


def atomic_cas(p, old, new, bits: int = 64, signed: bool = True) -> bool:
    """``atomic.CompareAndSwapT(p, old, new)``: an atomic write access either way (as
    ThreadSanitizer records it); release-acquire when it swaps, acquire when it does not."""
    r, a = _begin(p, "atomic.cas")
    if r is not None:
        r.atomic_access(p.loc, True, sys._getframe(1))
    if bits:
        old, new = _wrap(old, bits, signed), _wrap(new, bits, signed)
    if p.value == old:
        if r is not None:
            a.hb = r.release_acquire(r.rt.cur.gid, a.hb)
        p.value = new
        return True
    if r is not None:
        r.acquire(a.hb)
    return False
