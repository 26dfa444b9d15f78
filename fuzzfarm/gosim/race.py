"""Go's race detector (``go test -race``) for gosim: happens-before with vector clocks.

Every goroutine carries a vector clock (a list of ints, index ``gid - 1``; a missing entry is
0). Synchronisation moves clocks along the edges of the Go memory model (docs/RUNTIME.md#race
lists them with their Go counterparts); checked locations (``Shared`` fields, ``Var`` cells,
``Map`` values) remember their last write and the reads since, as FastTrack epochs
``(gid, clock[gid])``. Two accesses to one location, at least one a write, neither
happening before the other = a data race, whatever the schedule interleaved: a race is found
on a run where the two accesses were minutes apart, as ``-race`` finds it.

Clock operations, as ThreadSanitizer's Go interface names them:

* ``acquire(obj)``: ``C[g] ⊔= obj``;
* ``release`` (``racerelease``, a store): ``obj = C[g]``, then ``g`` ticks;
* ``release_merge`` (``racereleasemerge``): ``obj ⊔= C[g]``, then ``g`` ticks;
* ``release_acquire`` (``racereleaseacquire``, a channel buffer slot): ``slot' = C[g]``
  (before the acquire), ``C[g] ⊔= slot``, then ``g`` ticks;
* ``acquire_release`` (``raceacquire`` + ``racerelease``, a zero-size channel's one sync
  object): ``C[g] ⊔= obj; obj = C[g]``, then ``g`` ticks.

A goroutine ticks (its own entry + 1) after every release, so that what it does afterwards is
not ordered before the receiving side.

The detector is per run. ``gosim.run(race=None)`` (the default) starts it at the first access
of a ``Shared``/``Var`` in the run: before that nothing checked exists, and every
happens-before chain between two checked accesses consists of events after the first of
them, so starting late loses nothing for them (Map accesses before that point go unchecked).
``race=True`` starts it with the run (Map accesses checked from the start); ``race=False``
never. As with ``GORACE=halt_on_error=1``, the first race ends the run.

Nothing here reads ``id()``, ``hash()`` order or the wall clock: clocks are indexed by gid and
checked objects carry their state in an attribute.
"""

from __future__ import annotations

import sys
from types import CodeType

from . import failures as F

_READ, _WRITE = "Read", "Write"
DataRace = F.DataRace


def join(a: list, b: list | None) -> None:
    """``a ⊔= b`` in place (missing entries are 0)."""
    if not b:
        return
    la, lb = len(a), len(b)
    if lb > la:
        tail = b[la:]
        a[:] = map(max, a, b)  # la entries (map stops at the shorter list)
        a.extend(tail)
        return
    a[:lb] = map(max, a, b)


# co_filename -> is it project code: ``_site`` runs on every checked access, and
# ``is_project_file`` normalises the path each time (the detector's largest cost, profiled).
_PROJECT: dict = {}


def _site(frame) -> tuple[CodeType, int] | None:
    """(code, line) of the innermost project frame from ``frame`` outwards (rendered only
    when a race is reported)."""
    known = _PROJECT
    while frame is not None:
        code = frame.f_code
        fn = code.co_filename
        p = known.get(fn)
        if p is None:
            p = known[fn] = F.is_project_file(fn)
        if p:
            return code, frame.f_lineno
        frame = frame.f_back
    return None


def _render_site(s) -> F.StackFrame | None:
    return F._frame_of(s[0], s[1]) if s is not None else None


class Loc:
    """The race state of one checked location: the last write's epoch and site, and the reads
    since it (one epoch, or a dict gid -> (clock, site) when several goroutines read
    concurrently). ``det`` ties it to one run's detector (a location reused by a later run
    starts afresh)."""

    __slots__ = ("label", "det", "wg", "wc", "ws", "rg", "rc", "rs", "rmany", "atom")

    def __init__(self, label: str, det: "RaceDetector | None" = None):
        self.label = label
        self.reset(det)

    def reset(self, det) -> None:
        self.det = det
        self.wg = 0       # gid of the last write (0: none)
        self.wc = 0
        self.ws = None
        self.rg = 0       # gid of the single read epoch (0: none)
        self.rc = 0
        self.rs = None
        self.rmany = None  # dict gid -> (clock, site) once reads are concurrent
        self.atom = None  # Atomics, once an atomic function accessed it (sync/atomic on plain memory)


class Atomics:
    """What a location accessed by the ``sync/atomic`` functions (``atomic.AddInt32(&x, 1)``)
    adds to its race state, as ThreadSanitizer flags an atomic access in its shadow: two
    accesses race when at least one is a write, neither happens before the other and *not both
    are atomic*. So the last write (``Loc.wg``) may be atomic (``last``); the atomic writes it
    replaced while concurrent with it stay in ``writes`` (a plain access must still be checked
    against them), the atomic reads in ``reads`` (the plain reads stay in the Loc, which an
    atomic read never checks against). ``hb``: the clock of the location's synchronisation
    (the typed atomics' ``hb``)."""

    __slots__ = ("last", "writes", "reads", "hb")

    def __init__(self):
        self.last = False
        self.writes: dict = {}  # gid -> (clock, site)
        self.reads: dict = {}  # gid -> (clock, site)
        self.hb = None


class RaceDetector:
    """The happens-before state of one run (see the module docstring)."""

    __slots__ = ("rt", "vc", "last")

    def __init__(self, rt):
        self.rt = rt
        self.vc: list[list[int]] = []  # per goroutine, index gid - 1
        # gid -> the last snapshot of its own clock it released. A goroutine's clock only
        # grows, so acquiring that snapshot back (re-locking its own unlock, a channel slot it
        # passed last) changes nothing: the join is skipped (profiled: joins were the largest cost).
        self.last: dict = {}

    # -- clocks
    def clock(self, gid: int) -> list:
        """Goroutine ``gid``'s vector clock (created fresh on first use: own entry 1)."""
        try:
            return self.vc[gid - 1]
        except IndexError:
            pass
        vc = self.vc
        while len(vc) < gid:
            c = [0] * (len(vc) + 1)
            c[len(vc)] = 1
            vc.append(c)
        return vc[gid - 1]

    def cur(self) -> tuple[int, list]:
        g = self.rt.cur
        return g.gid, self.clock(g.gid)

    def go(self, parent, child) -> None:
        """``go`` statement: everything the parent did before it happens before the child starts."""
        gid = child.gid
        if parent is not None:
            pgid = parent.gid
            pc = self.clock(pgid)
            vc = self.vc
            if len(vc) == gid - 1 and len(pc) < gid:  # the usual case: the child is the newest goroutine
                c = pc + [0] * (gid - len(pc))  # = fresh clock (own entry 1) joined with the parent's
                c[gid - 1] = 1
                vc.append(c)
                pc[pgid - 1] += 1
                return
        c = self.clock(gid)
        if parent is not None:
            pc = self.clock(parent.gid)
            join(c, pc)
            pc[parent.gid - 1] += 1

    def start_from(self, child, snapshot: list | None) -> None:
        """A goroutine started by the runtime (``after_func``): its clock is fresh plus what
        the arming goroutine had done (``snapshot``), never the interrupted goroutine's."""
        gid = child.gid
        c = [0] * gid
        c[gid - 1] = 1
        join(c, snapshot)
        self.clock(gid)
        self.vc[gid - 1] = c

    def acquire(self, clock: list | None) -> None:
        """The running goroutine acquires ``clock`` (None: nothing to acquire)."""
        if clock:
            gid = self.rt.cur.gid
            if clock is self.last.get(gid):
                return
            try:
                c = self.vc[gid - 1]
            except IndexError:
                c = self.clock(gid)
            join(c, clock)

    def acquire_for(self, gid: int, clock: list | None) -> None:
        """Goroutine ``gid`` (maybe parked) acquires ``clock``."""
        if clock:
            join(self.clock(gid), clock)

    def release(self) -> list:
        """A release store by the running goroutine: returns a copy of its clock, then ticks."""
        gid = self.rt.cur.gid
        try:
            c = self.vc[gid - 1]
        except IndexError:
            c = self.clock(gid)
        snap = c[:]
        c[gid - 1] += 1
        self.last[gid] = snap
        return snap

    def release_merge(self, into: list | None) -> list:
        """``into ⊔= C[cur]`` (a new list when ``into`` is None), then the goroutine ticks."""
        gid = self.rt.cur.gid
        try:
            c = self.vc[gid - 1]
        except IndexError:
            c = self.clock(gid)
        if into is None:
            into = c[:]
        else:
            join(into, c)
        c[gid - 1] += 1
        return into

    def release_acquire(self, gid: int, slot: list | None) -> list:
        """A channel buffer slot passed by goroutine ``gid`` (Go's ``racereleaseacquireg``,
        ThreadSanitizer's ``ReleaseStoreAcquire``): the slot gets ``C`` as it was *before*
        the acquire, then ``C ⊔= slot``; tick. Storing the joined clock instead would hand
        what the previous passer knew on to the next one (send -> receive -> send on a
        capacity-1 channel: the second sender would inherit the first sender's clock, an
        edge Go does not have)."""
        c = self.clock(gid)
        snap = c[:]
        if slot is not self.last.get(gid):
            join(c, slot)
        c[gid - 1] += 1
        self.last[gid] = snap
        return snap

    def acquire_release(self, gid: int, obj: list | None) -> list:
        """Goroutine ``gid`` acquires ``obj``, then release-stores into it (Go's
        ``raceacquireg`` + ``racereleaseg`` on a zero-size channel's single sync object): returns
        the new ``obj``, ``C`` after the join; tick. Happens-before accumulates in ``obj``."""
        c = self.clock(gid)
        if obj is not self.last.get(gid):
            join(c, obj)
        snap = c[:]
        c[gid - 1] += 1
        self.last[gid] = snap
        return snap

    def exchange(self, a: int, b: int) -> None:
        """An unbuffered channel hand-off between goroutines ``a`` and ``b``: each acquires the
        other's clock (send before receive completes, receive before send completes)."""
        ca, cb = self.clock(a), self.clock(b)
        join(ca, cb)
        join(cb, ca)
        ca[a - 1] += 1
        cb[b - 1] += 1

    # -- checked accesses
    def read(self, loc: Loc, frame) -> None:
        """A read of ``loc`` by the running goroutine (``frame``: where, for the report)."""
        if loc.det is not self:
            loc.reset(self)
        g = self.rt.cur
        gid = g.gid
        try:
            c = self.vc[gid - 1]
        except IndexError:
            c = self.clock(gid)
        wg = loc.wg
        if wg and wg != gid and loc.wc > (c[wg - 1] if wg <= len(c) else 0):
            self._report(loc, _READ, g, frame, _WRITE, wg, loc.ws)
        if loc.atom is not None:
            self._check_all(loc, loc.atom.writes, _READ, g, c, frame, _WRITE)
        now = c[gid - 1]
        many = loc.rmany
        if many is None and loc.rg == gid and loc.rc == now:
            return  # read again in the same epoch (a range step): as ThreadSanitizer, keep the shadow
        # the site, inline for the usual case (the caller is project code: a Shared field)
        code = frame.f_code
        site = (code, frame.f_lineno) if _PROJECT.get(code.co_filename) else _site(frame)
        if many is not None:
            many[gid] = (now, site)
            return
        rg = loc.rg
        if not rg or rg == gid or loc.rc <= (c[rg - 1] if rg <= len(c) else 0):
            loc.rg = gid
            loc.rc = now
            loc.rs = site
            return
        loc.rmany = {rg: (loc.rc, loc.rs), gid: (now, site)}

    def write(self, loc: Loc, frame) -> None:
        """A write of ``loc`` by the running goroutine."""
        if loc.det is not self:
            loc.reset(self)
        g = self.rt.cur
        gid = g.gid
        try:
            c = self.vc[gid - 1]
        except IndexError:
            c = self.clock(gid)
        n = len(c)
        wg = loc.wg
        if wg and wg != gid and loc.wc > (c[wg - 1] if wg <= n else 0):
            self._report(loc, _WRITE, g, frame, _WRITE, wg, loc.ws)
        many = loc.rmany
        if many is not None:
            for rg in sorted(many):  # gid order: the report does not depend on dict order
                rc, rs = many[rg]
                if rg != gid and rc > (c[rg - 1] if rg <= n else 0):
                    self._report(loc, _WRITE, g, frame, _READ, rg, rs)
            loc.rmany = None
        else:
            rg = loc.rg
            if rg and rg != gid and loc.rc > (c[rg - 1] if rg <= n else 0):
                self._report(loc, _WRITE, g, frame, _READ, rg, loc.rs)
        if loc.atom is not None:  # a plain write races with every concurrent atomic access
            a = loc.atom
            self._check_all(loc, a.writes, _WRITE, g, c, frame, _WRITE)
            self._check_all(loc, a.reads, _WRITE, g, c, frame, _READ)
            a.last, a.writes, a.reads = False, {}, {}
        loc.rg = 0
        loc.rs = None
        code = frame.f_code
        loc.ws = (code, frame.f_lineno) if _PROJECT.get(code.co_filename) else _site(frame)
        loc.wg = gid
        loc.wc = c[gid - 1]

    def _check_all(self, loc: Loc, accesses: dict, op: str, g, c: list, frame, prev_op: str) -> None:
        """Report the first of ``accesses`` (gid -> (clock, site), in gid order) that does not
        happen before the running goroutine's access ``op``."""
        n = len(c)
        for og in sorted(accesses):
            oc, os_ = accesses[og]
            if og != g.gid and oc > (c[og - 1] if og <= n else 0):
                self._report(loc, op, g, frame, prev_op, og, os_)

    def atomic_access(self, loc: Loc, write: bool, frame) -> None:
        """An access of ``loc`` by one of ``sync/atomic``'s functions (ThreadSanitizer's
        ``kAccessAtomic``): it races only with a plain access (a read: with a plain write; a
        write: with a plain read or write) that does not happen before it. The caller does the
        synchronisation (``acquire``/``release``...) on ``atomics(loc).hb`` in Go's order: a load
        acquires before this check, a store or read-modify-write releases after it."""
        if loc.det is not self:
            loc.reset(self)
        a = loc.atom
        if a is None:
            a = loc.atom = Atomics()
        g = self.rt.cur
        gid = g.gid
        c = self.clock(gid)
        n = len(c)
        wg = loc.wg
        if wg and wg != gid and not a.last and loc.wc > (c[wg - 1] if wg <= n else 0):
            self._report(loc, _WRITE if write else _READ, g, frame, _WRITE, wg, loc.ws)
        site = _site(frame)
        now = c[gid - 1]
        if not write:
            a.reads[gid] = (now, site)
            return
        many = loc.rmany
        plain_reads = dict(many) if many is not None else {loc.rg: (loc.rc, loc.rs)} if loc.rg else {}
        self._check_all(loc, plain_reads, _WRITE, g, c, frame, _READ)
        # the atomic writes that do not happen before this one stay checked against plain accesses
        if wg and wg != gid and a.last and loc.wc > (c[wg - 1] if wg <= n else 0):
            a.writes[wg] = (loc.wc, loc.ws)
        a.writes = {og: v for og, v in a.writes.items() if og != gid and v[0] > (c[og - 1] if og <= n else 0)}
        a.reads = {og: v for og, v in a.reads.items() if og != gid and v[0] > (c[og - 1] if og <= n else 0)}
        loc.rg, loc.rs, loc.rmany = 0, None, None
        loc.wg, loc.wc, loc.ws = gid, now, site
        a.last = True

    def _report(self, loc: Loc, op: str, g, frame, prev_op: str, prev_gid: int, prev_site) -> None:
        rt = self.rt
        other = rt.goroutines[prev_gid - 1]
        site = _render_site(_site(frame))
        psite = _render_site(prev_site)
        access = (op, g.gid, g.name, site, g.created_by)
        previous = (prev_op, other.gid, other.name, psite, other.created_by)
        detail = (f"{op} of {loc.label} by goroutine {g.gid} [{g.name}] at {site}; "
                  f"previous {prev_op.lower()} by goroutine {other.gid} [{other.name}] at {psite}")
        state = "finished" if other.state == "done" else other.state
        rt.fail(DataRace(detail, location=loc.label, access=access, previous=previous, previous_state=state),
                frames=F.frames_from_frame(frame))


def atomics(det: RaceDetector, loc: Loc) -> Atomics:
    """``loc``'s atomic state in ``det``'s run (made on its first atomic access)."""
    if loc.det is not det:
        loc.reset(det)
    a = loc.atom
    if a is None:
        a = loc.atom = Atomics()
    return a


def detector(rt) -> RaceDetector | None:
    """The run's detector, started now if the run is in auto mode (``race=None``); None when
    the run has it off."""
    r = rt.race
    if r is not None:
        return r
    if rt.race_mode is False:
        return None
    r = rt.race = RaceDetector(rt)
    return r


class ChanClocks:
    """A channel's happens-before state: one clock per buffer slot (Go's ``racenotify`` on
    ``chanbuf(c, i)``), the send/receive slot counters, the clock of ``close``, and the
    channel's checked location (``chansend`` reads it, ``closechan`` writes it).

    A channel of zero-size elements (``Chan(zero_size=True)``: ``chan struct{}``) has no
    buffer: ``chanbuf(c, i)`` is the one address ``c.raceaddr()`` for every ``i``, which is
    also the address ``close`` releases to and a receive of the close acquires from. Go then
    accumulates (acquire + release-store) instead of the per-slot release-acquire, so there is
    one clock, ``slots[0]``, shared with ``close``."""

    __slots__ = ("det", "slots", "sendx", "recvx", "closed", "zero")

    def __init__(self, det: RaceDetector, cap: int, zero: bool = False):
        self.det = det
        self.zero = zero
        self.slots: list = [None] * (1 if zero else cap)
        self.sendx = 0
        self.recvx = 0  # sendx - recvx = values in the buffer, also when started mid-run
        self.closed: list | None = None


def _chan(det: RaceDetector, ch, taken: int = 0) -> ChanClocks:
    """The channel's clocks, created on the detector's first sight of it (a detector started
    mid-run, ``race=None``): ``sendx`` counts the values in the buffer *before* the operation in
    progress, ``taken`` of which it has already removed (a buffered receive pops its value
    before it calls here). Counting from after the pop would give the next send the slot the
    receive just released: an edge Go's memory model does not have (k-th receive -> (k+C)-th
    send), hiding a race."""
    h = ch.hb
    if h is None or h.det is not det:
        h = ch.hb = ChanClocks(det, ch.size, ch.zero_size)
        h.sendx = len(ch.buf) + taken
    return h


def _slot_pass(det: RaceDetector, h: ChanClocks, i: int, gid: int, src: list | None) -> None:
    """Goroutine ``gid`` (or, with ``src``, a runtime timer whose clock is ``src``) passes slot
    ``i`` (Go's ``racenotify``): release-acquire on the slot's clock, or for zero-size elements
    acquire + release on the channel's one clock."""
    if h.zero:
        if src is None:
            h.slots[0] = h.closed = det.acquire_release(gid, h.slots[0])
        else:
            c = list(src)
            join(c, h.slots[0])
            h.slots[0] = h.closed = c
        return
    if src is None:
        h.slots[i] = det.release_acquire(gid, h.slots[i])
        return
    h.slots[i] = list(src)  # the timer's clock before the acquire; nobody keeps the timer's


def chan_send(det: RaceDetector, ch, receiver, src: list | None) -> None:
    """A send completes now: handed to the parked goroutine ``receiver``, or (None) put into
    the buffer. The sender is the running goroutine, or a timer (``src``: its clock)."""
    sender = det.rt.cur.gid if src is None else 0
    if not ch.size:
        if src is None:
            det.exchange(sender, receiver.gid)
        else:
            det.acquire_for(receiver.gid, src)
        return
    h = _chan(det, ch)
    if receiver is None:
        i = h.sendx % ch.size
        h.sendx += 1
        _slot_pass(det, h, i, sender, src)
        return
    i = h.recvx % ch.size  # the buffer is empty: the value passes through slot recvx
    _slot_pass(det, h, i, sender, src)
    _slot_pass(det, h, i, receiver.gid, None)
    h.recvx += 1
    h.sendx += 1


def chan_recv(det: RaceDetector, ch, buffered: bool, sender) -> None:
    """A receive by the running goroutine completes now: from the buffer (``buffered``; then
    ``sender`` is a parked sender whose value takes the freed slot, or None) or straight from
    the parked ``sender`` (unbuffered)."""
    gid = det.rt.cur.gid
    if not buffered:
        det.exchange(sender.gid, gid)
        return
    h = _chan(det, ch, taken=1)  # the runtime popped the received value already (chan.py)
    i = h.recvx % ch.size
    _slot_pass(det, h, i, gid, None)
    h.recvx += 1
    if sender is not None:
        _slot_pass(det, h, i, sender.gid, None)
        h.sendx += 1


def chan_recv_closed(det: RaceDetector, ch, gid: int) -> None:
    """Goroutine ``gid`` receives the zero value because the channel is closed: the close
    happens before it."""
    h = ch.hb
    if h is not None and h.det is det:
        det.acquire_for(gid, h.closed)


def chan_close(det: RaceDetector, ch, src: list | None) -> None:
    """``close(ch)`` by the running goroutine (or a runtime timer/context with clock ``src``):
    ``racerelease(c.raceaddr())``, a store (for zero-size elements it overwrites what the
    sends accumulated in the same object, as in Go)."""
    h = _chan(det, ch)
    h.closed = det.release() if src is None else list(src)
    if h.zero:
        h.slots[0] = h.closed


def chan_access(det: RaceDetector, ch, write: bool, frame) -> None:
    """Go's checked access of the channel itself: ``chansend`` (and a ``select`` send case it
    examines) reads ``c.raceaddr()``, ``closechan`` writes it, so a send not ordered with a
    close is a data race (on ``<chan label>``), whichever comes first."""
    loc = ch.loc
    if loc is None:
        loc = ch.loc = Loc(ch.label)
    if write:
        det.write(loc, frame)
    else:
        det.read(loc, frame)


def snapshot(rt) -> list | None:
    """What a runtime timer armed now carries to what it does when it fires (Go: the timer
    is released at Reset/AfterFunc and acquired when it runs): a release by the running
    goroutine, or an empty clock when the detector is not running."""
    r = rt.race
    if r is None or rt.cur is None:
        return []
    return r.release()


def wg_sema(det: RaceDetector, wg, write: bool) -> None:
    """Go's misuse check in ``sync.WaitGroup``: an ``Add`` that raises the counter from zero
    reads ``wg.sema``, the first ``Wait`` that must block writes it, so an ``Add`` from zero
    not ordered with a concurrent ``Wait`` is a data race (on ``<label>.sema``)."""
    loc = wg.sema
    if loc is None:
        loc = wg.sema = Loc(f"{wg.label}.sema")
    frame = sys._getframe(2)
    if write:
        det.write(loc, frame)
    else:
        det.read(loc, frame)
