"""``golang.org/x/sync/errgroup``: a group of goroutines working on subtasks of one task.

``Group.go(f)`` runs ``f`` in a new goroutine; ``f`` returns an error value (anything not
None, e.g. a ``GoError``) or None. ``wait()`` blocks until every ``f`` returned and gives the
first error (None if none). ``with_context(ctx)`` returns a group and a derived context that
is cancelled the first time an ``f`` returns an error, or when ``wait`` returns, whichever
comes first. ``set_limit(n)`` bounds the active goroutines (``go`` blocks, ``try_go``
refuses). Built, as upstream, from a WaitGroup, a Once and a channel semaphore, so it has
their scheduling points and happens-before edges (every ``f`` return happens before ``wait``
returns).
"""

from __future__ import annotations

from typing import Any, Callable

from . import context as _context
from .chan import Chan, select, send_case
from .gopanic import go_panic
from .runtime import _name_of
from .sync import Once, WaitGroup


class Group:
    """``errgroup.Group`` (the zero value is usable in Go: ``Group()`` here)."""

    def __init__(self, _cancel: Callable[[], None] | None = None):
        self.wg = WaitGroup("errgroup.wg")
        self.err_once = Once("errgroup.errOnce")
        self.err: Any = None
        self.cancel = _cancel
        self.sem: Chan | None = None

    def _done(self) -> None:
        if self.sem is not None:
            self.sem.recv()
        self.wg.done()

    def _start(self, f: Callable[..., Any], args: tuple) -> None:
        from .api import go

        self.wg.add(1)

        def body():
            try:
                err = f(*args)
                if err is not None:
                    def first():
                        self.err = err
                        if self.cancel is not None:
                            self.cancel()

                    self.err_once.do(first)
            finally:
                self._done()

        go(body, name=_name_of(f))

    def go(self, f: Callable[..., Any], *args) -> None:
        """Go: ``(*Group).Go``: blocks while the limit is reached, then runs ``f`` in a new goroutine."""
        if self.sem is not None:
            self.sem.send(None)
        self._start(f, args)

    def try_go(self, f: Callable[..., Any], *args) -> bool:
        """Go: ``(*Group).TryGo``: like ``go`` unless the limit is reached (then False, no goroutine)."""
        if self.sem is not None:
            i, _, _ = select(send_case(self.sem, None), default=True)
            if i != 0:
                return False
        self._start(f, args)
        return True

    def wait(self) -> Any:
        """Go: ``(*Group).Wait``: the first non-None error returned by an ``f``, or None."""
        self.wg.wait()
        if self.cancel is not None:
            self.cancel()
        return self.err

    def set_limit(self, n: int) -> None:
        """Go: ``(*Group).SetLimit``: at most ``n`` active goroutines (negative: no limit).
        Raises RuntimeError (Go's panic) while goroutines of the group are active."""
        if n < 0:
            self.sem = None
            return
        if self.sem is not None and len(self.sem) != 0:
            raise go_panic(RuntimeError, f"errgroup: modify limit while {len(self.sem)} goroutines in the group are still active")
        self.sem = Chan(n, name="errgroup.sem", zero_size=True)  # make(chan token, n); type token struct{}


def with_context(ctx: _context.Context) -> tuple[Group, _context.Context]:
    """Go: ``errgroup.WithContext``: ``(group, derived ctx)``; the ctx is cancelled by the
    first error or when ``wait`` returns."""
    derived, cancel = _context.with_cancel(ctx)
    return Group(cancel), derived
