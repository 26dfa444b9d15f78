"""The gosim model of Go's ``log`` package: ``log.Printf`` / ``Println`` / ``Print``, ``log.Default()``,
``log.New(w, prefix, flag)`` and those methods of ``*log.Logger``.

What matters to a schedule is the logger's synchronisation. Go's ``(*Logger).output`` (log/log.go)
loads ``isDiscard``, the prefix and the flags (atomics), formats the line, then writes it holding
``l.outMu``; so a goroutine's log call *happens before* the next log call of any other goroutine
on the same logger, and ``-race`` sees that edge: a plain variable written before one goroutine
logs and read after another goroutine's later log call is no data race in Go. The model takes a
gosim ``Mutex`` at the same place (its unlock -> lock is the happens-before edge, as for
``sync.Mutex``) and keeps the three atomics as gosim atomics; without the mutex a port reported
races Go does not (tests/goport/test_log_model.py).

Where the line goes: a logger made by ``log.New`` calls its writer's ``Write`` (a method of the
port, run under the mutex as in Go) with the line's bytes (an ``rt.Slice`` of ints). The standard
logger's writer is stderr in Go: the model keeps its lines on the logger (``Logger.lines``) and
writes nothing, neither to stdout (what the product prints there is its own) nor to stderr (a
fuzz run makes millions of calls). The header follows the flags: the prefix, then for
``Ldate``/``Ltime``/``Lmicroseconds`` the virtual clock's reading as a UTC date from the Unix
epoch (a port's clock is not a date: the width is Go's, the date is not), then for
``Lshortfile``/``Llongfile`` ``???:0`` (what Go prints when it cannot find the caller; the port
does not know the Go caller's line here).

One standard logger per run (``std``): a package var Go makes once per process, made afresh
for each gosim run as the port's package vars are.
"""

from __future__ import annotations

import time
import weakref

from fuzzfarm import gosim
from fuzzfarm.gosim import not_ported, runtime as _runtime

from . import rt

_STD = "Go's standard library log package: the ports pin no Go release, so no file.go:line"
LDATE, LTIME, LMICROSECONDS, LLONGFILE, LSHORTFILE, LUTC, LMSGPREFIX = 1, 2, 4, 8, 16, 32, 64
LSTD_FLAGS = LDATE | LTIME


class Logger:
    """``log.Logger``: ``out_mu`` is Go's ``outMu``; ``out`` its writer (None: the standard
    logger's stderr, kept in ``lines``)."""

    @not_ported(f"log.New / the standard logger, {_STD}")
    def __init__(self, out=None, prefix: str = "", flag: int = LSTD_FLAGS, name: str = "log.Logger"):
        self.out_mu = gosim.Mutex(f"{name}.outMu")
        self.out = out
        self.lines: list[str] = []
        self.is_discard = gosim.atomic.Bool(False, name=f"{name}.isDiscard")
        self.prefix_ = gosim.atomic.Pointer(prefix, name=f"{name}.prefix")
        self.flag = gosim.atomic.Int32(flag, name=f"{name}.flag")

    def _header(self, prefix: str, flag: int) -> str:
        h = "" if flag & LMSGPREFIX else prefix
        if flag & (LDATE | LTIME | LMICROSECONDS):
            now = gosim.now()
            t = time.gmtime(now)
            if flag & LDATE:
                h += f"{t.tm_year:04d}/{t.tm_mon:02d}/{t.tm_mday:02d} "
            if flag & (LTIME | LMICROSECONDS):
                h += f"{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d}"
                if flag & LMICROSECONDS:
                    h += f".{int(now * 1e6) % 1000000:06d}"
                h += " "
        if flag & (LSHORTFILE | LLONGFILE):
            h += "???:0: "
        return h + (prefix if flag & LMSGPREFIX else "")

    def _output(self, text: str) -> None:
        if self.is_discard.load():
            return
        prefix, flag = self.prefix_.load(), self.flag.load()
        text = self._header(prefix, flag) + text
        if not text.endswith("\n"):
            text += "\n"  # Go appends the newline before taking the lock
        self.out_mu.lock()  # Go: l.outMu.Lock(); defer l.outMu.Unlock(); l.out.Write(*buf)
        try:
            if self.out is None:
                self.lines.append(text)
            else:
                self.out.write(rt.Slice(list(text.encode())))
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

    @not_ported(f"log.(*Logger).Prefix, {_STD}")
    def prefix(self) -> str:
        return self.prefix_.load()

    @not_ported(f"log.(*Logger).SetPrefix, {_STD}")
    def set_prefix(self, prefix: str) -> None:
        self.prefix_.store(prefix)

    @not_ported(f"log.(*Logger).Flags, {_STD}")
    def flags(self) -> int:
        return self.flag.load()

    @not_ported(f"log.(*Logger).SetFlags, {_STD}")
    def set_flags(self, flag: int) -> None:
        self.flag.store(flag)


@not_ported(f"log.New, {_STD}")
def new(out, prefix: str, flag: int) -> Logger:
    return Logger(out, prefix, flag)


_std: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # gosim runtime -> its std logger


@not_ported(f"log.Default, {_STD}")
def std() -> Logger:
    """``log.Default()``: the standard logger of the run in progress."""
    r = _runtime.current_runtime()
    lg = _std.get(r)
    if lg is None:
        lg = _std[r] = Logger(name="log.std")
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
