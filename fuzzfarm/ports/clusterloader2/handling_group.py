"""``wait.Group`` from k8s.io/apimachinery ``pkg/util/wait``: a WaitGroup plus ``go``.

``start(f)`` calls ``add(1)`` on the *caller's* goroutine, then starts a goroutine that runs
``f`` and calls ``done()`` when it exits (a deferred call, so also while a panic unwinds).
``wait()`` is the WaitGroup's ``Wait``, with every misuse check of gosim's WaitGroup (an
``add`` from zero racing a ``wait`` is docs/ports/clusterloader2.md#p3).
"""

from __future__ import annotations

from typing import Callable

from fuzzfarm.gosim import WaitGroup, go, go_func, not_ported


class Group:
    """apimachinery ``wait.Group``."""

    @not_ported("the zero value of wait.Group: Go needs no constructor")
    def __init__(self, name: str | None = None):
        self.wg = WaitGroup(name)

    @go_func("wait.Group.Wait", "wait.go:48")
    def wait(self) -> None:
        self.wg.wait()

    @go_func("wait.Group.Start", "wait.go:69")
    def start(self, f: Callable[[], None], *, name: str | None = None) -> None:
        """Run ``f`` in a new goroutine (named ``name``) tracked by the group."""
        self.wg.add(1)  # :70
        go(self._run, f, name=name or getattr(f, "__qualname__", "f"))  # :71

    @go_func("wait.Group.Start.func1", "wait.go:71")
    def _run(self, f: Callable[[], None]) -> None:
        try:
            f()  # :73
        finally:  # defer g.wg.Done()
            self.wg.done()  # :72
