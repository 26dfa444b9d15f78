"""A race-checked map with the Go runtime's ``hashWriting`` checks (Go <= 1.23 maps, same
checks and messages in 1.24 swiss maps; docs/RUNTIME.md#map).

* read / lookup: flag set -> ``concurrent map read and map write``
* every iteration step, including the first and the one that ends the loop: flag set ->
  ``concurrent map iteration and map write``
* write or delete: flag set on entry -> ``concurrent map writes``; then the flag is toggled
  (XOR) and the write spans scheduling points; on exit a clear flag -> ``concurrent map writes``.
* an empty map is not checked by reads, lookups, deletes, clears and ranges: Go returns before
  looking at the flag (``h == nil || h.count == 0``). Writes (mapassign) always check.

The window comes from the map itself, as Go's comes from its runtime: every operation starts
with a scheduling point (another goroutine may run between the caller's previous statement and
the check: on real hardware they run in parallel), a write has two more (between its entry check
and the toggle, where Go hashes the key; and inside the write), and each range step has one
before its check. Ports need no scheduling points of their own to open these windows.

Two writers that both pass the entry check toggle the flag twice, leaving it clear, so the first
one's exit check fails: Go's XOR flavour. ``len`` does no check (but is a race-detector read). Iteration starts at a position
taken from the schedule, never from dict order. Detection is best-effort, as in Go: an overlap
that no check lands in goes unseen.
"""

from __future__ import annotations

import sys
from typing import Any, Iterable, Iterator

from . import failures as F
from . import race as _race
from .runtime import current_runtime

_MISSING = object()


class Map:
    """``map[K]V``. Dict-like: ``m[k]``, ``m.get``, ``k in m``, ``m[k] = v``, ``del m[k]``,
    ``m.pop``, ``len(m)``, ``m.items()`` / ``keys()`` / ``values()`` / ``iter(m)``, ``m.clone()``.

    Copying a struct that holds a Map copies the reference (Go semantics): use ``clone`` for a
    new map. Keys must be hashable; their order never depends on hashing.
    """

    __slots__ = ("rt", "label", "d", "writing", "hb", "writer", "site")

    def __init__(self, init: Iterable | dict | None = None, name: str | None = None):
        self.rt = current_runtime()
        self.label = name or f"map#{self.rt.new_object_id()}"
        # the map's identity across runs (a failure's ``obj_site``): its name, else where it is made
        self.site = name or F.creation_site(sys._getframe(1))
        self.d: dict = dict(init) if init is not None else {}
        self.writing = False
        # With the race detector on, the map is one checked location (Go's -race checks the
        # map header: racereadpc/racewritepc in mapaccess/mapassign/mapiterinit).
        self.hb = _race.Loc(self.label)
        self.writer: int | None = None  # gid of the goroutine that last toggled the writing flag

    def __repr__(self) -> str:
        return f"{self.label}{self.d!r}"

    def _fail(self, cls, text: str) -> None:
        """Go's fatal error ``text`` on this map, naming the map (``subject``, ``obj``) and the
        goroutine caught writing it (``racing``: the other side of the race)."""
        failure = cls(text, obj=self.label)
        failure.obj_site = self.site
        failure.subject = f"map {self.label}"
        failure.racing = self.writer
        self.rt.fail(failure, frames=F.frames_from_frame(sys._getframe(1)))

    # -- reads
    def _read_check(self) -> None:
        """A scheduling point, then Go's read check of the hashWriting flag (none on an empty
        map: mapaccess returns first)."""
        rt = self.rt
        rt.sched("map.read", self.label)
        if rt.race is not None:  # Go's -race reads the header first (racereadpc), empty or not
            rt.race.read(self.hb, sys._getframe(1))
        if rt.trace is not None:  # what an assertion read, with its writer (invariant.py)
            rt.trace.read(rt, self.hb, sys._getframe(1))
        if self.writing and self.d:  # mapaccess on an empty map returns before the check
            self._fail(F.ConcurrentMapReadWrite, "concurrent map read and map write")

    def __getitem__(self, k: Any) -> Any:
        """``m[k]`` (Go: mapaccess). KeyError when missing (Go would give the zero value: use
        ``get``/``lookup``). Raises ConcurrentMapReadWrite (fatal) during a write."""
        self._read_check()
        return self.d[k]

    def get(self, k: Any, default: Any = None) -> Any:
        """``v, ok := m[k]`` style lookup returning ``default`` when missing."""
        self._read_check()
        return self.d.get(k, default)

    def lookup(self, k: Any) -> tuple[Any, bool]:
        """``v, ok := m[k]``."""
        self._read_check()
        v = self.d.get(k, _MISSING)
        return (None, False) if v is _MISSING else (v, True)

    def __contains__(self, k: Any) -> bool:
        """``_, ok := m[k]``. Raises ConcurrentMapReadWrite (fatal) during a write."""
        self._read_check()
        return k in self.d

    def __len__(self) -> int:
        """``len(m)``: no hashWriting check and no scheduling point, as in Go; with the race
        detector running it is a read of the map: ``len`` compiles to a load of the header's
        count word, the address mapassign's ``racewritepc`` names, so ``-race`` reports
        ``len(m)`` unordered with a write (tests/conformance: ``LenMapRacesWrite``)."""
        rt = self.rt
        if rt.race is not None and rt.cur is not None:
            rt.race.read(self.hb, sys._getframe(1))
        obs = rt.observer
        if obs is not None:  # a read the search's reduction must see (Footprints.access)
            obs.access("map.len", self.label)
        return len(self.d)

    # -- writes
    def _write(self, op: str, k: Any, v: Any = None) -> Any:
        """One Go map write (mapassign / mapdelete / mapclear): entry check, XOR, the write
        spanning scheduling points, exit check. Raises ConcurrentMapWrites."""
        rt = self.rt
        what = f"{self.label}[{k!r}]" if op != "clear" else f"clear({self.label})"
        if rt.trace is not None:  # the map these events are on (a label may hold brackets itself)
            rt.trace.map_of[what] = self.label
        rt.sched("map.write.enter", what)  # the operation starts: before its entry check
        if rt.race is not None:  # -race's racewritepc comes first (mapassign, mapdelete, mapclear)
            rt.race.write(self.hb, sys._getframe(1))
        if op != "set" and not self.d:  # mapdelete / mapclear on an empty map return before the check
            return _MISSING
        if self.writing:
            self._fail(F.ConcurrentMapWrites, "concurrent map writes")
        rt.sched("map.write.begin", what)  # between the check and the toggle (Go hashes the key)
        self.writing = not self.writing
        self.writer = rt.cur.gid if rt.cur is not None else None
        rt.sched("map.write", what)  # inside the write
        old = None
        if op == "set":
            self.d[k] = v
        elif op == "del":
            old = self.d.pop(k, _MISSING)
        else:
            self.d.clear()
        if not self.writing:
            self._fail(F.ConcurrentMapWrites, "concurrent map writes")
        self.writing = False
        if rt.trace is not None:
            rt.trace.event(rt, "map.write.end", what)
        return old

    def __setitem__(self, k: Any, v: Any) -> None:
        """``m[k] = v`` (Go: mapassign). Raises ConcurrentMapWrites (fatal)."""
        self._write("set", k, v)

    def __delitem__(self, k: Any) -> None:
        """``delete(m, k)``; unlike a dict, a missing key is not an error (Go semantics).
        Raises ConcurrentMapWrites (fatal)."""
        self._write("del", k)

    def pop(self, k: Any, default: Any = None) -> Any:
        """``v, ok := m[k]; delete(m, k)`` as one write: the old value or ``default``."""
        old = self._write("del", k)
        return default if old is _MISSING else old

    def setdefault(self, k: Any, default: Any = None) -> Any:
        """``v, ok := m[k]; if !ok { m[k] = default }``: a read, then a write when missing."""
        v, ok = self.lookup(k)
        if ok:
            return v
        self._write("set", k, default)
        return default

    def update(self, other) -> None:
        """``for k, v := range other { m[k] = v }``: one write per pair (``other`` a dict or
        pairs, iterated in its own order; a Map is iterated with its checks)."""
        items = other.items() if hasattr(other, "items") else other
        for k, v in items:
            self._write("set", k, v)

    def clear(self) -> None:
        """``clear(m)`` (Go 1.21): one write. Raises ConcurrentMapWrites (fatal)."""
        self._write("clear", None)

    def clone(self, name: str | None = None) -> "Map":
        """``maps.Clone``: a read of this map (an iteration over it) into a new map."""
        return Map(dict(self.items()), name=name)

    # -- iteration
    def items(self) -> Iterator[tuple[Any, Any]]:
        """``for k, v := range m``. Start position from the schedule; every step checks."""
        rt = self.rt
        keys = list(self.d)
        n = len(keys)
        if not n:  # mapiterinit on an empty map returns before any check
            rt.sched("map.iter", self.label)
            return
        start = rt.choose_index(n, f"range {self.label}") if n > 1 else 0
        for i in range(n):
            rt.sched("map.iter", self.label)
            if rt.race is not None:  # mapiternext: racereadpc, then the hashWriting check
                rt.race.read(self.hb, sys._getframe(1))
            if self.writing:
                self._fail(F.ConcurrentMapIterationWrite, "concurrent map iteration and map write")
            k = keys[(start + i) % n]
            v = self.d.get(k, _MISSING)
            if v is _MISSING:  # deleted during the loop: Go does not produce it
                continue
            yield k, v
        rt.sched("map.iter", self.label)  # the step that ends the loop checks too
        if rt.race is not None:
            rt.race.read(self.hb, sys._getframe(1))
        if self.writing:
            self._fail(F.ConcurrentMapIterationWrite, "concurrent map iteration and map write")

    def keys(self) -> Iterator[Any]:
        """``for k := range m`` (same checks and order as ``items``)."""
        for k, _ in self.items():
            yield k

    def values(self) -> Iterator[Any]:
        """``for _, v := range m`` (same checks and order as ``items``)."""
        for _, v in self.items():
            yield v

    def __iter__(self) -> Iterator[Any]:
        """``for k := range m``."""
        return self.keys()

    def snapshot(self) -> dict:
        """The contents without any check or scheduling point (for assertions and oracles)."""
        obs = self.rt.observer
        if obs is not None:  # a read the search's reduction must see (Footprints.access)
            obs.access("map.snapshot", self.label)
        return dict(self.d)
