"""Exhaustive preemption-bounded search (``dfs``): one run of the search tree, and the step
footprints its reduction rests on. The search loop is ``fuzzfarm.engine.explore``; the model
and its soundness argument are written up in ``docs/EXPLORE.md``.

:class:`DFSStrategy` follows a forced prefix of decisions, then the default schedule (keep the
current goroutine running; after a block or exit, the lowest-id runnable goroutine; never fire
a timer early; the first select case / iteration start), and records every alternative it
passed as a branch ``(decisions, preemptions)`` for the search to explore later. A branch
costs one preemption when it switches away from a goroutine that could continue or fires a
timer early (a timer firing is a choice like any other); switching after a block, and data
choices, are free.

:class:`Footprints` is the runtime observer (``Runtime.observer``). It cuts each goroutine's
execution into steps, one per scheduling point (whether or not a decision was taken there), and
records which objects each step touched: the object named at the point where the step starts
and at the point where it ends (gosim primitives act on their object just after or just before
their scheduling point), every object it read with no scheduling point (``len(ch)``, ``len(m)``,
``m.snapshot()``: :meth:`Footprints.access`), every goroutine it woke (the object that goroutine
waits on), every goroutine it spawned, the object-serial counter and the timer heap. A step at a point of unknown
kind (``select``, ``cancel``, ``sleep``, an unlisted primitive), and every timer firing, counts
as touching everything. From the steps it keeps a fingerprint of the Mazurkiewicz trace (the
order of steps on each object, plus the order around every touch-everything step): two runs
with equal fingerprints are the same interleaving up to reordering steps that touch nothing
in common, so they reach the same state. The search caches fingerprints (CHESS's happens-before
caching) and cuts a run whose state was already reached with no more preemptions spent.

The reduction assumes goroutines share mutable Python state only through gosim objects or
while holding a gosim lock (Go's rule for a race-free program); ``reduce=False`` explores
the plain bounded tree without that assumption.
"""

from __future__ import annotations

import hashlib

from .base import stay_index

_MASK = (1 << 128) - 1

# Scheduling-point kinds whose object is exactly the label passed (sync, chan, map, once) and
# park reasons likewise. Anything else is a touch-everything step (sound, no reduction).
_OBJECT_POINTS = frozenset({
    "lock", "trylock", "unlock", "rlock", "tryrlock", "runlock", "wg.add", "wg.wait", "once",
    "send", "recv", "close",
    "sync.Mutex.Lock", "sync.RWMutex.RLock", "sync.RWMutex.Lock",
    "sync.RWMutex.Lock (waiting for readers)", "sync.WaitGroup.Wait", "chan send", "chan receive",
    "chan.len",  # a read with no scheduling point (``Footprints.access``)
})
_PURE_POINTS = frozenset({None, "gosched"})  # `go`'s point after the spawn, Gosched: touch nothing
_GLOBAL = object()


_KEYS: dict = {}


def _key(ev, obj):
    """:func:`_key_of`, memoised (labels repeat across the runs of a search)."""
    try:
        return _KEYS[ev, obj]
    except KeyError:
        k = _KEYS[ev, obj] = _key_of(ev, obj)
        return k
    except TypeError:  # an unhashable label
        return _key_of(ev, obj)


def _key_of(ev, obj):
    """The object a point of kind ``ev`` with trace label ``obj`` names, ``None`` for none,
    ``_GLOBAL`` for unknown. Labels are normalised so one object always gets one key (two
    objects sharing a key only adds dependences, which is safe)."""
    if ev in _PURE_POINTS and obj is None:
        return None
    if ev is None or not isinstance(obj, str):
        return _GLOBAL
    if ev.startswith("map."):
        if obj.startswith("clear(") and obj.endswith(")"):
            obj = obj[6:-1]
        return "o:" + obj.split("[", 1)[0]
    if ev in _OBJECT_POINTS:
        if ev == "wg.add":
            obj = obj.rsplit(" ", 1)[0]  # "WaitGroup#3 +1"
        return "o:" + obj
    return _GLOBAL


def _h(*parts) -> bytes:
    return hashlib.blake2b(repr(parts).encode(), digest_size=16).digest()


_C1 = 0x9E3779B97F4A7C15F39CC0605CEDC835
_C2 = 0xBF58476D1CE4E5B94D2E2B8D7F1A3C65


def _mix(a: int, b: int) -> int:
    """A 128-bit mixing step (multiply/xor-shift, as splitmix): fast, deterministic in every
    process (no ``hash()``), and spreading every input bit over the result."""
    x = ((a * _C1) ^ b) & _MASK
    x = ((x ^ (x >> 61)) * _C2) & _MASK
    return x ^ (x >> 67)


_KEY_IDS: dict = {}


def _kid(key) -> int:
    """A 128-bit id for a key (label, ``("G", gid)``, ...), the same in every process."""
    v = _KEY_IDS.get(key)
    if v is None:
        v = _KEY_IDS[key] = int.from_bytes(_h("key", key), "big") | 1
    return v


class _Step:
    __slots__ = ("keys", "glob", "data")

    def __init__(self, first=None):
        self.keys = set() if first is None else {first}
        self.glob = False
        self.data: list[int] = []


class Footprints:
    """Runtime observer keeping the trace fingerprint of the run so far (see module docstring).

    ``fingerprint()`` is a hashable value; equal values mean equivalent runs so far (128-bit
    mixes: a collision is the only way two different traces could compare equal)."""

    def __init__(self):
        self.rt = None
        self.open: dict[int, _Step] = {}
        self.points: dict[int, int] = {}
        self.park_key: dict[int, object] = {}
        self.keyh: dict[str, bytes] = {}
        self.comb = 0
        self.epoch = 0
        self.globals = 0
        self.firing = False

    def begin(self, rt) -> None:
        self.__init__()
        self.rt = rt

    # -- the runtime's hooks
    def wrap(self, sched, gosched):
        point = self.point

        def sched_observed(ev=None, obj=None, yielding=False):
            point(ev, obj)
            return sched(ev, obj, yielding)

        def gosched_observed():
            point("gosched", None)
            return gosched()

        return sched_observed, gosched_observed

    def _step(self):
        rt = self.rt
        if rt is None or rt.over or self.firing or rt.cur is None:
            return None
        return self.open.get(rt.cur.gid)

    def touch(self, key) -> None:
        st = self._step()
        if st is not None:
            st.keys.add(key)

    def access(self, ev, obj) -> None:
        """The running goroutine reads or writes runtime state with no scheduling point
        (``len(ch)``, ``len(m)``, ``m.snapshot()``): its current step touches the object a
        point ``ev``/``obj`` would name. Without this a send and a ``len`` of the same channel
        would commute, and the schedule where ``len`` sees the send would be cut as explored."""
        st = self._step()
        if st is None:
            return
        k = _key(ev, obj)
        if k is _GLOBAL:
            st.glob = True
        elif k is not None:
            st.keys.add(k)

    def spawned(self, g) -> None:
        if self.rt is None or self.rt.over:
            return
        self.open[g.gid] = _Step(("G", g.gid))
        self.points[g.gid] = 0
        st = self._step()
        if st is not None:
            st.keys.add(("G", g.gid))
            st.keys.add("spawn")  # gids are handed out in spawn order

    def readied(self, g) -> None:
        st = self._step()
        if st is None:
            return
        k = self.park_key.get(g.gid, _GLOBAL)
        if k is _GLOBAL:
            st.glob = True
        elif k is not None:
            st.keys.add(k)

    def data_choice(self, i: int) -> None:
        st = self._step()
        if st is not None:
            st.data.append(i)

    def point(self, ev, obj) -> None:
        """The running goroutine reached a scheduling point (or parks): its step ends here."""
        rt = self.rt
        if rt is None or rt.over or rt.cur is None:
            return
        gid = rt.cur.gid
        k = _key(ev, obj)
        st = self.open.get(gid)
        if st is None:
            st = self.open[gid] = _Step()
        if k is _GLOBAL:
            st.glob = True
        elif k is not None:
            st.keys.add(k)
        self._close(gid, st)
        nxt = _Step()
        if k is _GLOBAL:
            nxt.glob = True
        elif k is not None:
            nxt.keys.add(k)
        self.open[gid] = nxt
        self.park_key[gid] = k

    def exited(self, g) -> None:
        if self.rt is None or self.rt.over:
            return
        st = self.open.pop(g.gid, None)
        if st is not None:
            self._close(g.gid, st)

    def timer(self, fire) -> None:
        """A timer fires (the runtime's own act): one touch-everything step."""
        self.firing = True
        try:
            fire()
        finally:
            self.firing = False
        if not self.rt.over:
            self.globals += 1
            self._fold_global(_mix(_kid("timer"), self.globals))

    # -- the fingerprint: per key, a hash chain of the steps touching it in order; their
    # sum (order of keys does not matter); around touch-everything steps, a chain of epochs.
    def _close(self, gid: int, st: _Step) -> None:
        n = self.points.get(gid, 0)
        self.points[gid] = n + 1
        e = _mix(gid, n)
        for d in st.data:
            e = _mix(e, d + 1)
        if st.glob:
            self._fold_global(e)
            return
        keys = st.keys or (("G", gid, "self"),)  # a step touching nothing: ordered by its goroutine only
        keyh = self.keyh
        comb = self.comb
        for k in keys:
            kid = _kid(k)
            old = keyh.get(kid)
            if old is not None:
                comb -= _mix(kid, old)
            new = _mix(old or kid, e)
            keyh[kid] = new
            comb += _mix(kid, new)
        self.comb = comb & _MASK

    def _fold_global(self, e: int) -> None:
        self.epoch = _mix(_mix(self.epoch, self.comb), e)
        self.keyh = {}
        self.comb = 0

    def fingerprint(self):
        return (self.epoch, self.comb)


def _timing(rt) -> tuple:
    """The scheduler's own history that decides whether a timer may fire early
    (``Runtime._early_ok``): when each runnable goroutine last ran, how many early firings
    it has waited through, and whether the run has left the starvation bound or may still be
    asked to (the "starvation bound" data decision, which can come at a decision after a block,
    where no goroutine's step would record it). Two runs with equal traces can differ here (one preempted a goroutine
    before a clock jump, the other after), and then a timer may fire early in one run's future
    and not in the other's; so it is part of the state the search caches. Without timers every
    value is 0 and nothing changes."""
    return (rt.early_fires, rt.drained_at is None, tuple((g.gid, g.ran_at, g.early_mark) for g in rt.runnable),
            # the realism bound: still asked whether to leave it (lift_one_in), left (None) or kept
            rt.max_starvation_s, getattr(rt, "lift_one_in", 0))


class Pruned(Exception):
    """Raised from a pick to cut the run: its state was reached before with no more preemptions."""


class DFSStrategy:
    """One run of the search: follow ``prefix`` (a list of option indices, one per decision),
    then the default schedule, recording alternatives in ``branches`` as ``(decisions, preemptions)``.

    ``bound``: branches costing more preemptions are not recorded; ``cache`` (a dict, shared by
    the runs of one search) turns the reduction on: at every goroutine decision past the prefix
    the run is cut (:class:`Pruned`) when ``(fingerprint, current goroutine, timing)`` was reached
    with no more preemptions (``timing``: :func:`_timing`). ``decisions`` lists the indices taken (the bytes reproducer: index i
    replays as byte i under ``BytesStrategy``); ``preemptions`` is what the run spent.
    """

    def __init__(self, prefix=(), preemptions: int = 0, bound: int = 2, cache: dict | None = None):
        self.prefix = list(prefix)
        self.base_preemptions = preemptions
        self.bound = bound
        self.cache = cache
        self.observer = Footprints() if cache is not None else None
        self.decisions: list[int] = []
        self.branches: list[tuple[list[int], int]] = []
        self.preemptions = preemptions
        self.pruned = False

    def begin(self, rt) -> None:
        self.decisions = []
        self.branches = []
        self.preemptions = self.base_preemptions
        if self.observer is not None:
            self.observer.begin(rt)

    def _branch(self, i: int, cost: int) -> None:
        p = self.preemptions + cost
        if p <= self.bound:
            self.branches.append((self.decisions + [i], p))

    def pick(self, runnable, current, timer: bool) -> int:
        at = len(self.decisions)
        n = len(runnable)
        if at < len(self.prefix):
            i = self.prefix[at]
            if not 0 <= i < n + timer:
                raise RuntimeError(f"dfs: decision {at} replays option {i} of {n + timer}: the "
                                   "scenario is not deterministic")
            self.decisions.append(i)
            return i
        if self.cache is not None:
            key = (self.observer.fingerprint(), current.gid if current is not None else 0, _timing(self.observer.rt))
            seen = self.cache.get(key)
            if seen is not None and seen <= self.preemptions:
                self.pruned = True
                raise Pruned()
            self.cache[key] = self.preemptions
        default = stay_index(runnable, current)
        for i in range(n + timer):
            if i != default:
                # switching away from a goroutine that could go on, or firing a timer early
                self._branch(i, 1 if (current is not None or i == n) else 0)
        self.decisions.append(default)
        return default

    def pick_index(self, n: int, what: str) -> int:
        at = len(self.decisions)
        if at < len(self.prefix):
            i = self.prefix[at]
            if not 0 <= i < n:
                raise RuntimeError(f"dfs: decision {at} replays index {i} of {n} ({what}): the "
                                   "scenario is not deterministic")
        else:
            i = 0
            for j in range(1, n):
                self._branch(j, 0)
        self.decisions.append(i)
        if self.observer is not None:
            self.observer.data_choice(i)
        return i
