"""The gosim model of Go's ``log`` package: ``log.Printf`` / ``Println`` / ``Print``, ``log.Default()``
and those methods of ``*log.Logger``.

What matters to a schedule is the logger's mutex. Go's ``(*Logger).output`` (log/log.go) formats
the line first, then writes it holding ``l.outMu``; so a goroutine's log call *happens before* the
next log call of any other goroutine on the same logger, and ``-race`` sees that edge: a plain
variable written before one goroutine logs and read after another goroutine's later log call is
no data race in Go. The model takes a gosim ``Mutex`` at the same place (its unlock -> lock is
the happens-before edge, as for ``sync.Mutex``); without it a port reported races Go does not.

Where the line goes: Go writes it to the logger's writer (stderr for the standard logger). The
model keeps it on the logger (``Logger.lines``, one per call, without Go's date/time header: a
port's clock is virtual, not a date) and writes nothing, neither to stdout (what the product
prints there is its own) nor to stderr (a fuzz run makes millions of calls).

One standard logger per run (``std``): a package var Go makes once per process, made afresh
for each gosim run as the port's package vars are.
"""

from __future__ import annotations

import weakref

from fuzzfarm import gosim
from fuzzfarm.gosim import not_ported, runtime as _runtime

from . import rt

_STD = "Go's standard library log package: the ports pin no Go release, so no file.go:line"


class Logger:
    """``log.Logger``: ``out_mu`` is Go's ``outMu``; ``lines`` what Go would have written."""

    @not_ported(f"log.New / the standard logger, {_STD}")
    def __init__(self, name: str = "log.Logger"):
        self.out_mu = gosim.Mutex(f"{name}.outMu")
        self.lines: list[str] = []

    def _output(self, text: str) -> None:
        if not text.endswith("\n"):
            text += "\n"  # Go appends the newline before taking the lock
        self.out_mu.lock()  # Go: l.outMu.Lock(); defer l.outMu.Unlock(); l.out.Write(*buf)
        try:
            self.lines.append(text)
        finally:
            self.out_mu.unlock()

    @not_ported(f"log.(*Logger).Printf, {_STD}")
    def printf(self, fmt: str, *args) -> None:
        self._output(rt.sprintf(fmt, *args))

    @not_ported(f"log.(*Logger).Print, {_STD}")
    def print_(self, *args) -> None:
        self._output(rt.sprint(*args))

    @not_ported(f"log.(*Logger).Println, {_STD}")
    def println(self, *args) -> None:
        self._output(" ".join(rt.fmt_v(a) for a in args))  # fmt.Sprintln: always spaced


_std: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # gosim runtime -> its std logger


@not_ported(f"log.Default, {_STD}")
def std() -> Logger:
    """``log.Default()``: the standard logger of the run in progress."""
    r = _runtime.current_runtime()
    lg = _std.get(r)
    if lg is None:
        lg = _std[r] = Logger("log.std")
    return lg


@not_ported(f"log.Printf, {_STD}")
def printf(fmt: str, *args) -> None:
    std().printf(fmt, *args)


@not_ported(f"log.Print, {_STD}")
def print_(*args) -> None:
    std().print_(*args)


@not_ported(f"log.Println, {_STD}")
def println(*args) -> None:
    std().println(*args)
