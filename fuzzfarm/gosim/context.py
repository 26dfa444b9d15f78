"""Go's ``context``: background, with_cancel, with_timeout / with_deadline.

``cancel`` is idempotent, closes ``done()`` and cancels every child; a child of a done parent
is done from birth; ``err()`` is None until done, then ``CANCELED`` or ``DEADLINE_EXCEEDED``.
Deadlines are virtual-clock timers.
"""

from __future__ import annotations

from typing import Callable

from . import race as _race
from .chan import Chan
from .runtime import current_runtime


class GoError(Exception):
    """A Go ``error`` value; compare with ``is`` against the module sentinels."""


CANCELED = GoError("context canceled")
DEADLINE_EXCEEDED = GoError("context deadline exceeded")


class Context:
    """``context.Context``. ``done()`` returns a Chan or None (the nil channel: never done)."""

    def done(self) -> Chan | None:
        """Go: ``Done()``: a channel closed when the context is cancelled (None: never)."""
        return None

    def err(self) -> GoError | None:
        """Go: ``Err()``: None until done, then ``CANCELED`` or ``DEADLINE_EXCEEDED``."""
        return None

    def deadline(self) -> float | None:
        """Go: ``Deadline()``: the virtual time (s) at which it expires, or None."""
        return None

    def value(self, key):
        """Go: ``Value(key)``: the nearest ``with_value`` binding of ``key``, or None."""
        return None


class _Background(Context):
    def __repr__(self) -> str:
        return "context.Background"


_BACKGROUND = _Background()


def background() -> Context:
    """``context.Background()``: never done, no deadline."""
    return _BACKGROUND


def todo() -> Context:
    """``context.TODO()``: same as ``background()``."""
    return _BACKGROUND


def _lock(ctx: "_CancelCtx") -> None:
    """Go's ``c.mu.Lock()`` ... ``c.mu.Unlock()`` around a read or an update of a cancelCtx by
    the running goroutine (propagateCancel, Done's first call, Err, cancel, removeChild): the
    previous unlock happens before it, it happens before the next lock. Go's race detector
    sees these edges (the runtime's mutex is annotated), so a port that lacked them would report
    races ``go test -race`` does not (hc01's twin: a write before the child's first Done is
    ordered before a read after the parent's second cancel)."""
    rt = ctx.rt
    if rt.race is not None and rt.cur is not None:
        rt.race.acquire(ctx.mu_hb)
        ctx.mu_hb = rt.race.release()


def _parent_cancel_ctx(parent: Context) -> "_CancelCtx | None":
    """The nearest cancellable ancestor, looking through value contexts (Go: parentCancelCtx)."""
    while isinstance(parent, _ValueCtx):
        parent = parent.parent
    return parent if isinstance(parent, _CancelCtx) else None


class _CancelCtx(Context):
    def __init__(self, parent: Context, name: str):
        self.rt = current_runtime()
        self.parent = parent
        self.label = name
        self._done = Chan(0, name=f"{name}.Done")
        self._err: GoError | None = None
        self._deadline = parent.deadline()
        self.children: list[_CancelCtx] = []
        self.timer = None
        self.mu_hb = None  # race detector: clock of the last unlock of Go's c.mu
        self.done_made = False  # Go creates the Done channel on the first Done() (under c.mu)
        self.done_hb = None  # the clock that creation (or cancel's closedchan) stored
        self.owner = _parent_cancel_ctx(parent)
        if self.owner is not None:
            _lock(self.owner)  # propagateCancel: the parent's children, under its mutex
            if self.owner._err is not None:
                if self.rt.race is not None:  # Go's propagateCancel saw the parent's Done
                    _race.chan_recv_closed(self.rt.race, self.owner._done, self.rt.cur.gid)
                self.cancel_from_runtime(self.owner._err)
            else:
                self.owner.children.append(self)

    def __repr__(self) -> str:
        return self.label

    def done(self) -> Chan:
        rt = self.rt
        if rt.race is not None and rt.cur is not None:
            if not self.done_made:  # the channel is made and stored under c.mu
                self.done_made = True
                _lock(self)
                self.done_hb = self.mu_hb
            else:  # an atomic load of the stored channel
                rt.race.acquire(self.done_hb)
        return self._done

    def err(self) -> GoError | None:
        if self._err is not None and self.rt.race is not None and self.rt.cur is not None:
            # Go's Err() reads under the context's mutex: the cancel happens before it
            _race.chan_recv_closed(self.rt.race, self._done, self.rt.cur.gid)
        _lock(self)
        return self._err

    def deadline(self) -> float | None:
        return self._deadline

    def value(self, key):
        return self.parent.value(key)

    def cancel_from_runtime(self, err: GoError, src: list | None = None) -> None:
        """Cancel without a scheduling point (used by timers and parent propagation). The
        canceller is the running goroutine, or a deadline timer whose race clock is ``src``.
        A goroutine cancels under each context's mutex (``_lock``), the children while it holds
        the parent's, as Go's cancelCtx.cancel does."""
        by_goroutine = src is None and self.rt.race is not None and self.rt.cur is not None
        if by_goroutine:
            self.rt.race.acquire(self.mu_hb)  # c.mu.Lock()
        if self._err is not None:
            if by_goroutine:
                self.mu_hb = self.rt.race.release()  # already cancelled: c.mu.Unlock()
            return
        self._err = err
        self._done.close_from_runtime(src)
        if not self.done_made and self.rt.race is not None:
            self.done_made = True  # cancel stores Go's closedchan: a later Done() loads it
            self.done_hb = self._done.hb.closed if self._done.hb is not None else src
        if src is None and self.rt.race is not None and not by_goroutine:
            src = self._done.hb.closed  # the children are cancelled with the same clock
        children, self.children = self.children, []
        for c in children:
            c.cancel_from_runtime(err, src)
        if by_goroutine:
            self.mu_hb = self.rt.race.release()  # c.mu.Unlock(), after the children
        if self.timer is not None:
            self.rt.cancel_timer(self.timer)
            self.timer = None
        owner = self.owner
        if owner is not None:
            children = owner.children
            for i, c in enumerate(children):
                if c is self:
                    del children[i]
                    break


class _ValueCtx(Context):
    def __init__(self, parent: Context, key, val):
        self.parent, self.key, self.val = parent, key, val

    def done(self):
        return self.parent.done()

    def err(self):
        return self.parent.err()

    def deadline(self):
        return self.parent.deadline()

    def value(self, key):
        return self.val if key == self.key else self.parent.value(key)


def with_value(parent: Context, key, val) -> Context:
    """``context.WithValue``: a child carrying ``key`` -> ``val``; done/err/deadline are the parent's."""
    return _ValueCtx(parent, key, val)


def _cancel_func(ctx: _CancelCtx) -> Callable[[], None]:
    def cancel() -> None:
        ctx.rt.sched("cancel", ctx.label)
        first = ctx._err is None
        ctx.cancel_from_runtime(CANCELED)
        if first and ctx.owner is not None:
            _lock(ctx.owner)  # removeChild: the parent's children, under its mutex

    cancel.__qualname__ = f"cancel[{ctx.label}]"
    return cancel


def with_cancel(parent: Context) -> tuple[Context, Callable[[], None]]:
    """``context.WithCancel``: returns ``(ctx, cancel)``. ``cancel()`` is a scheduling point,
    idempotent, closes ``ctx.done()``, sets ``err()`` to ``CANCELED`` and cancels every
    descendant; a child of an already-cancelled parent is done from birth. Raises
    RuntimeError outside a run."""
    rt = current_runtime()
    ctx = _CancelCtx(parent, f"ctx#{rt.new_object_id()}")
    return ctx, _cancel_func(ctx)


def with_deadline(parent: Context, deadline: float) -> tuple[Context, Callable[[], None]]:
    """``context.WithDeadline``: like ``with_cancel``, plus a virtual-clock timer that cancels
    with ``DEADLINE_EXCEEDED`` at exactly ``deadline`` (virtual seconds). A deadline already
    past is exceeded at birth; a parent deadline that comes first wins (as in Go)."""
    rt = current_runtime()
    pd = parent.deadline()
    ctx = _CancelCtx(parent, f"ctx#{rt.new_object_id()}")
    if pd is not None and pd <= deadline:
        return ctx, _cancel_func(ctx)  # the parent's deadline comes first, as in Go
    ctx._deadline = deadline
    if ctx._err is None:
        if deadline <= rt.now:
            ctx.cancel_from_runtime(DEADLINE_EXCEEDED)
        else:
            snap = _race.snapshot(rt)  # WithDeadline happens before the deadline's cancel
            ctx.timer = rt.add_timer_at(deadline, lambda: ctx.cancel_from_runtime(DEADLINE_EXCEEDED, snap),
                                        f"{ctx.label} deadline")
    return ctx, _cancel_func(ctx)


def with_timeout(parent: Context, timeout: float) -> tuple[Context, Callable[[], None]]:
    """``context.WithTimeout``: ``with_deadline(parent, now() + timeout)`` (virtual seconds)."""
    return with_deadline(parent, current_runtime().now + timeout)
