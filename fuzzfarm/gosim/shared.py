"""Race-checked plain memory: ``Shared`` struct fields and ``Var`` cells.

A Go struct field or variable that several goroutines touch is plain memory: nothing crashes
when two goroutines use it without synchronisation, but ``go test -race`` reports
``WARNING: DATA RACE``. Declare such a field ``Shared`` (or hold the variable in a ``Var``) and
gosim checks every access with the happens-before detector (``race.py``).

Every access is a scheduling point before the load or store. It stands for Go's asynchronous
preemption (Go >= 1.14 can stop a goroutine by signal at almost any instruction, so another
goroutine may run between any two plain memory accesses) and for the instrumentation call
``-race`` puts before every access (``racereadpc`` / ``racewritepc``). Outside a run (module
level, assertions after ``gosim.run`` returned) accesses are plain and unchecked.
"""

from __future__ import annotations

import sys
from typing import Any

from . import race as _race
from . import runtime as _runtime

_NO_DEFAULT = object()


class Shared:
    """A race-checked struct field (a data descriptor)::

        class Elector:
            observed = gosim.Shared()      # Go: observedRecord LeaderElectionRecord

    Reads (``e.observed``) and writes (``e.observed = v``, including the first one in
    ``__init__``: a Go composite literal writes its fields too) are scheduling points and are
    checked for data races. ``default`` is the value before any write (Go's zero value; it is
    shared by all instances: use immutable values). The instance needs a ``__dict__``. The
    location is named ``Class.field`` in reports; ``go_name``, when the attribute is not the Go
    field's name (a port renamed it: ``done_field`` beside a method ``done``), names it
    ``Class.go_name`` instead, as the user's Go does."""

    __slots__ = ("name", "label", "key", "default", "go_name")

    def __init__(self, default: Any = None, *, go_name: str | None = None):
        self.default = default
        self.go_name = go_name
        self.name = self.label = self.key = "?"

    def __set_name__(self, owner, name: str) -> None:
        self.name = name
        self.label = f"{owner.__name__}.{self.go_name or name}"
        self.key = f"__race__{name}"

    def _loc(self, obj) -> _race.Loc:
        if self.key == "?":  # never named: __set_name__ runs only for a class body's assignments
            raise TypeError(f"gosim.Shared() on {type(obj).__name__} was attached after the class was created, so "
                            "it has no field name: declare it in the class body (Go: a struct field), or call "
                            "Class.field.__set_name__(Class, 'field') after attaching it")
        d = obj.__dict__
        loc = d.get(self.key)
        if loc is None:
            loc = d[self.key] = _race.Loc(self.label)
        return loc

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        rt = _runtime._rt
        if rt is not None:
            rt.sched("read", self.label)
            r = rt.race if rt.race is not None else _race.detector(rt)
            if r is not None:
                r.read(self._loc(obj), sys._getframe(1))
            if rt.trace is not None:  # what an assertion read, with its writer (invariant.py)
                rt.trace.read(rt, self._loc(obj), sys._getframe(1))
        if self.key == "?":
            self._loc(obj)  # the clear error, also when no run or detector is on
        return obj.__dict__.get(self.name, self.default)

    def __set__(self, obj, value) -> None:
        if self.key == "?":
            self._loc(obj)
        rt = _runtime._rt
        if rt is not None:
            rt.sched("write", self.label)
            r = rt.race if rt.race is not None else _race.detector(rt)
            if r is not None:
                r.write(self._loc(obj), sys._getframe(1))
        obj.__dict__[self.name] = value


class Var:
    """A race-checked variable: ``v = gosim.Var("leader", None)``; ``v.load()`` reads,
    ``v.store(x)`` writes (Go: a plain package or local variable shared by goroutines).

    Both are scheduling points and checked for data races (they are not atomics: see
    ``gosim.atomic`` for those). Creating it is not an access: Go's variable declaration
    happens before any goroutine can see it."""

    __slots__ = ("name", "value", "loc")

    def __init__(self, name: str, value: Any = None):
        self.name = name
        self.value = value
        self.loc = _race.Loc(name)

    def __repr__(self) -> str:
        return f"Var({self.name!r})"

    def load(self) -> Any:
        """Read the value (a checked read)."""
        rt = _runtime._rt
        if rt is not None:
            rt.sched("read", self.name)
            r = rt.race if rt.race is not None else _race.detector(rt)
            if r is not None:
                r.read(self.loc, sys._getframe(1))
            if rt.trace is not None:
                rt.trace.read(rt, self.loc, sys._getframe(1))
        return self.value

    def store(self, value: Any) -> None:
        """Write the value (a checked write)."""
        rt = _runtime._rt
        if rt is not None:
            rt.sched("write", self.name)
            r = rt.race if rt.race is not None else _race.detector(rt)
            if r is not None:
                r.write(self.loc, sys._getframe(1))
        self.value = value
