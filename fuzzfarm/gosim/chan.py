"""Go channels and ``select``.

Buffered and unbuffered channels with Go's rules: a send on an unbuffered channel completes
only when a receiver takes the value; a receive on a closed, drained channel returns
``(None, False)``; close of a closed or nil channel and send on a closed channel panic.
Waiting senders and receivers are served FIFO (Go's sudog queues). ``None`` is the nil
channel: operations on it block forever, ``select`` never picks it.
"""

from __future__ import annotations

import sys
from collections import deque
from typing import Any, Iterator

from . import failures as F
from . import race as _race
from .gopanic import go_panic
from .runtime import current_runtime


class _Waiter:
    """A goroutine parked on one or more channels. For select, ``sel`` is shared by its cases."""

    __slots__ = ("g", "value", "ok", "sel", "case")

    def __init__(self, g, value=None, sel=None, case=0):
        self.g = g
        self.value = value
        self.ok = True
        self.sel = sel
        self.case = case


class _Select:
    __slots__ = ("fired", "case", "value", "ok")

    def __init__(self):
        self.fired = False
        self.case = -1
        self.value = None
        self.ok = True


def _claim(w: _Waiter) -> bool:
    """True if ``w`` may still be served (a select waiter is served once)."""
    s = w.sel
    if s is None:
        return True
    if s.fired:
        return False
    s.fired = True
    s.case = w.case
    return True


SYNC_TIMER = 1
ASYNC_TIMER = 2


def old_timers_effect(rt, what: str) -> None:
    """Record the first point where this run, under Go <= 1.22 timers, behaved as Go >= 1.23
    would not (``Runtime.old_timers_effect``): a failure after it is labelled with the Go
    versions it needs (``GoFailure.go_versions``)."""
    if rt.old_timers_effect is None:
        f = F.first_project_frame_of(sys._getframe(1))
        rt.old_timers_effect = what + (f" at {f}" if f is not None else "")


def _timer_len(ch) -> int:
    """runtime/chan.go ``chanlen``: 0 for a Go >= 1.23 timer channel; under Go <= 1.22 the
    buffer's length, and a 1 is something Go >= 1.23 would not show (``old_timers_effect``)."""
    if ch.timer == SYNC_TIMER:
        return 0
    n = len(ch.buf)
    if n:
        old_timers_effect(ch.rt, f"len({ch.label}) is {n} (0 on Go >= 1.23)")
    return n


def _timer_cap(ch) -> int:
    """runtime/chan.go ``chancap``: 0 for a Go >= 1.23 timer channel, 1 before."""
    if ch.timer == SYNC_TIMER:
        return 0
    old_timers_effect(ch.rt, f"cap({ch.label}) is 1 (0 on Go >= 1.23)")
    return ch.size


class Chan:
    """``make(chan T, cap)``. Methods: ``send``, ``recv`` -> value, ``recv_ok`` -> (value, ok),
    ``close``, ``len``; iterating yields values until the channel is closed and drained.

    ``cap`` is the buffer size (0 = unbuffered; ValueError if negative, Go: ``makechan: size
    out of range``); ``name`` labels it in traces and dumps (default ``chan#<serial>``).
    ``zero_size=True`` says the element type has size zero (``chan struct{}``): it changes
    only what the race detector orders (Go keeps one sync object for such a channel's whole
    buffer, docs/RUNTIME.md#race). Raises RuntimeError when created outside a run.
    """

    __slots__ = ("rt", "label", "size", "buf", "closed", "recvq", "sendq", "hb", "zero_size", "loc", "timer")

    def __init__(self, cap: int = 0, name: str | None = None, zero_size: bool = False):
        if cap < 0:
            raise go_panic(ValueError, "makechan: size out of range")
        self.rt = current_runtime()
        self.label = name or f"chan#{self.rt.new_object_id()}"
        self.size = cap  # the buffer's real size (``cap`` is what the program sees)
        self.buf: deque = deque()
        self.closed = False
        self.recvq: deque[_Waiter] = deque()
        self.sendq: deque[_Waiter] = deque()
        self.hb = None  # race detector: slot and close clocks (race.ChanClocks)
        self.zero_size = bool(zero_size)
        self.loc = None  # race detector: the channel as a checked location (send reads, close writes)
        # A timer's channel (clock.py): SYNC_TIMER (Go >= 1.23: presents as unbuffered) or
        # ASYNC_TIMER (Go <= 1.22: what len/cap show is noted). A flag, not a subclass: one
        # type keeps CPython's attribute caches at every channel operation monomorphic.
        self.timer = 0

    def __repr__(self) -> str:
        return self.label

    def __len__(self) -> int:
        obs = self.rt.observer
        if obs is not None:  # no scheduling point, but a read the search's reduction must see
            obs.access("chan.len", self.label)
        if self.timer:
            return _timer_len(self)
        return len(self.buf)

    @property
    def cap(self) -> int:
        """``cap(ch)``: the capacity (0 for a Go >= 1.23 timer channel, see ``clock``)."""
        if self.timer:
            return _timer_cap(self)
        return self.size

    # -- non-blocking cores, shared by send/recv/select and by timers (no scheduling point)
    def _pop_receiver(self) -> _Waiter | None:
        q = self.recvq
        while q:
            w = q.popleft()
            if _claim(w):
                return w
        return None

    def _pop_sender(self) -> _Waiter | None:
        q = self.sendq
        while q:
            w = q.popleft()
            if _claim(w):
                return w
        return None

    def _deliver(self, w: _Waiter, value: Any, ok: bool) -> None:
        if w.sel is not None:
            w.sel.value, w.sel.ok = value, ok
        else:
            w.value, w.ok = value, ok
        self.rt.ready(w.g)

    def _can_send(self) -> bool:
        return self.closed or any(w.sel is None or not w.sel.fired for w in self.recvq) or len(self.buf) < self.size

    def _can_recv(self) -> bool:
        return bool(self.buf) or self.closed or any(w.sel is None or not w.sel.fired for w in self.sendq)

    def _send_now(self, value: Any, src: list | None = None) -> bool:
        """Complete a send without blocking if possible. Caller checked ``closed``. The sender
        is the running goroutine, or a timer whose race clock is ``src``."""
        w = self._pop_receiver()
        if w is not None:
            if self.rt.race is not None:
                _race.chan_send(self.rt.race, self, w.g, src)
            self._deliver(w, value, True)
            return True
        if len(self.buf) < self.size:
            if self.rt.race is not None:
                _race.chan_send(self.rt.race, self, None, src)
            self.buf.append(value)
            return True
        return False

    def _recv_now(self) -> tuple[bool, Any, bool]:
        """(done, value, ok) for a receive that does not block."""
        race = self.rt.race
        if self.buf:
            v = self.buf.popleft()
            w = self._pop_sender()
            if race is not None:
                _race.chan_recv(race, self, True, w.g if w is not None else None)
            if w is not None:
                self.buf.append(w.value)
                self.rt.ready(w.g)
            return True, v, True
        w = self._pop_sender()
        if w is not None:
            if race is not None:
                _race.chan_recv(race, self, False, w.g)
            v = w.value
            self.rt.ready(w.g)
            return True, v, True
        if self.closed:
            if race is not None:
                _race.chan_recv_closed(race, self, self.rt.cur.gid)
            return True, None, False
        return False, None, False

    def try_send_from_timer(self, value: Any, src: list | None = None) -> None:
        """Timer delivery into a buffered channel: drops the value if full (Go's tickers).
        ``src``: the race clock the timer carries (``race.snapshot`` when it was armed)."""
        if not self.closed:
            self._send_now(value, [] if src is None else src)

    def drain_for_timer(self) -> bool:
        """Go >= 1.23 ``timerchandrain`` (runtime/chan.go): drop every buffered value, with no
        race-detector access; True if there was one."""
        if not self.buf:
            return False
        n = len(self.buf)
        self.buf.clear()
        if self.hb is not None:
            self.hb.recvx += n  # the slots the drained values held are free again
        return True

    def idle_for_timer(self) -> bool:
        """True when a timer delivery would change nothing (closed, or buffer full)."""
        return self.closed or (self.size > 0 and len(self.buf) >= self.size)

    # -- blocking operations
    def send(self, value: Any) -> None:
        """``ch <- value``. Raises SendOnClosedChannel (a panic)."""
        rt = self.rt
        rt.sched("send", self.label)
        if rt.race is not None:  # chansend's racereadpc(c.raceaddr()), before the closed check
            _race.chan_access(rt.race, self, False, sys._getframe(1))
        if self.closed:
            rt.fail(F.SendOnClosedChannel("send on closed channel"))
        if self._send_now(value):
            return
        w = _Waiter(rt.cur, value)
        self.sendq.append(w)
        rt.park("chan send", self.label)
        if not w.ok:  # woken by close
            rt.fail(F.SendOnClosedChannel("send on closed channel"))

    def recv_ok(self) -> tuple[Any, bool]:
        """``v, ok := <-ch``: blocks until a value or the close; ``ok`` is False (value None)
        once the channel is closed and drained."""
        rt = self.rt
        rt.sched("recv", self.label)
        done, v, ok = self._recv_now()
        if done:
            return v, ok
        w = _Waiter(rt.cur)
        self.recvq.append(w)
        rt.park("chan receive", self.label)
        return w.value, w.ok

    def recv(self) -> Any:
        """``v := <-ch`` (None once closed and drained)."""
        return self.recv_ok()[0]

    def close(self) -> None:
        """``close(ch)``: wakes every receiver with (None, False) and every sender, who panic."""
        rt = self.rt
        if self.closed:
            if rt.trace is not None:  # the close that panics is an event too (no scheduling point: Go's closechan panics first)
                rt.trace.event(rt, "close", self.label)
            rt.fail(F.CloseOfClosedChannel("close of closed channel"))
        if rt.race is not None:  # closechan's racewritepc(c.raceaddr())
            _race.chan_access(rt.race, self, True, sys._getframe(1))
        self.close_from_runtime()
        rt.sched("close", self.label)

    def close_from_runtime(self, src: list | None = None) -> None:
        """Close without a scheduling point (contexts and timers close ``done`` channels).
        The closer is the running goroutine, or a timer whose race clock is ``src``."""
        self.closed = True
        race = self.rt.race
        if race is not None:
            _race.chan_close(race, self, src)
        while True:
            w = self._pop_receiver()
            if w is None:
                break
            if race is not None:
                _race.chan_recv_closed(race, self, w.g.gid)
            self._deliver(w, None, False)
        while True:
            w = self._pop_sender()
            if w is None:
                break
            if w.sel is not None:
                w.sel.ok = False
            w.ok = False
            self.rt.ready(w.g)

    def __iter__(self) -> Iterator[Any]:
        """``for v := range ch``."""
        while True:
            v, ok = self.recv_ok()
            if not ok:
                return
            yield v


def close(ch: Chan | None) -> None:
    """``close(ch)`` that also handles the nil channel. Raises CloseOfNilChannel (a panic) for
    ``None`` and CloseOfClosedChannel for a closed channel."""
    if ch is None:
        rt = current_runtime()
        rt.fail(F.CloseOfNilChannel("close of nil channel"))
    ch.close()


def send(ch: Chan | None, value: Any) -> None:
    """``ch <- value``; on the nil channel (``None``) blocks forever. Raises SendOnClosedChannel."""
    if ch is None:
        current_runtime().park("chan send (nil chan)")
    ch.send(value)


def recv_ok(ch: Chan | None) -> tuple[Any, bool]:
    """``v, ok := <-ch``; on the nil channel (``None``) blocks forever."""
    if ch is None:
        current_runtime().park("chan receive (nil chan)")
    return ch.recv_ok()


def recv_case(ch: Chan | None) -> tuple:
    """A receive case ``case v, ok := <-ch`` for :func:`select` (``None``: a nil channel, never ready)."""
    return ("recv", ch, None)


def send_case(ch: Chan | None, value: Any) -> tuple:
    """A send case ``case ch <- value`` for :func:`select` (``None``: a nil channel, never ready)."""
    return ("send", ch, value)


DEFAULT = -1


def _case_labels(cases) -> tuple:
    """The labels of a select's channels, in case order, each once (nil channels left out)."""
    out = []
    for _, ch, _ in cases:
        if ch is not None and ch.label not in out:
            out.append(ch.label)
    return tuple(out)


def select(*cases: tuple, default: bool = False) -> tuple[int, Any, bool]:
    """Go ``select``. ``cases`` are :func:`recv_case` / :func:`send_case` tuples.

    Returns ``(index, value, ok)``: index of the case that ran (``DEFAULT`` = -1 when
    ``default`` is set and nothing was ready), the received value and ok flag (None, True for
    sends). Which ready case wins is a schedule decision. With no case and no default it
    blocks forever. A send case on a closed channel panics if chosen.
    """
    rt = current_runtime()
    if rt.trace is not None:  # the event's objects: the select's channels (trace_slice.py)
        rt.trace.next_objs = _case_labels(cases)
    rt.sched("select", None)
    ready = []
    for i, (op, ch, _) in enumerate(cases):
        if ch is None:
            continue
        if (ch._can_recv() if op == "recv" else ch._can_send()):
            ready.append(i)
    race = rt.race
    if ready:
        i = ready[rt.choose_index(len(ready), "select")]
        op, ch, v = cases[i]
        if race is not None and op == "send":  # selectgo's racereadpc on the send case it took
            _race.chan_access(race, ch, False, sys._getframe(1))
        if op == "recv":
            _, value, ok = ch._recv_now()
            return i, value, ok
        if ch.closed:
            rt.fail(F.SendOnClosedChannel("send on closed channel"))
        ch._send_now(v)
        return i, None, True
    if race is not None:  # nothing ready: selectgo examined, and read, every send case
        for op, ch, _ in cases:
            if op == "send" and ch is not None:
                _race.chan_access(race, ch, False, sys._getframe(1))
    if default:
        return DEFAULT, None, True
    sel = _Select()
    waiters = []
    for i, (op, ch, v) in enumerate(cases):
        if ch is None:
            continue
        w = _Waiter(rt.cur, v, sel, i)
        waiters.append((ch, op, w))
        (ch.recvq if op == "recv" else ch.sendq).append(w)
    if rt.trace is not None:
        rt.trace.next_objs = _case_labels(cases)
    rt.park("select" if waiters else "select (no cases)")
    for ch, op, w in waiters:
        q = ch.recvq if op == "recv" else ch.sendq
        try:
            q.remove(w)
        except ValueError:
            pass
    i = sel.case
    if cases[i][0] == "send":
        if not sel.ok:
            rt.fail(F.SendOnClosedChannel("send on closed channel"))
        return i, None, True
    return i, sel.value, sel.ok
