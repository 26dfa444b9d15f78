"""The failure oracle: one exception class per way a Go program dies or misbehaves.

Every failure carries what Go's crash dump carries: the kind, the message, the failing
goroutine, every goroutine's stack (project frames only) and the decision index and virtual
time at which it happened. ``crash_state`` (top three project frames of the failing
goroutine, no line numbers) is what the collector buckets on.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from types import FrameType, TracebackType

from .gonames import go_site
from .gopanic import PORT_ERRORS, go_text
from .projectcode import is_project_file  # race.py takes it from here too

@dataclasses.dataclass(frozen=True)
class StackFrame:
    """One project frame: function (qualified, ``<locals>`` dropped), file (basename) and line;
    for a port function declared with ``gonames.go_func``, also the Go function it stands for
    (``go_func``) and its ``file.go:line`` (``go_site``)."""

    func: str
    file: str
    line: int
    go_func: str | None = None
    go_site: str | None = None

    @property
    def shown(self) -> str:
        """The name a user reads: the Go function when declared, else the Python one."""
        return self.go_func or self.func

    def __str__(self) -> str:
        if self.go_func:
            return f"{self.go_func} ({self.go_site}) [{self.func} {self.file}:{self.line}]"
        return f"{self.func} ({self.file}:{self.line})"

    def to_json(self) -> dict:
        """``{"func", "file", "line"}``, plus ``go_func`` and ``go_site`` when declared."""
        out = {"func": self.func, "file": self.file, "line": self.line}
        if self.go_func:
            out["go_func"] = self.go_func
            out["go_site"] = self.go_site
        return out


def go_frame_text(f: StackFrame) -> str:
    """One crash-state frame as a user reads it: ``GoFunc (file.go:line)`` when declared, else
    the Python function."""
    return f"{f.go_func} ({f.go_site})" if f.go_func else f.func


def _frame_of(code, lineno: int) -> StackFrame:
    name = getattr(code, "co_qualname", code.co_name).replace("<locals>.", "")
    go = go_site(code, lineno)
    if go is not None:
        return StackFrame(name, os.path.basename(code.co_filename), lineno, go[0], go[1])
    return StackFrame(name, os.path.basename(code.co_filename), lineno)


def frames_from_frame(frame: FrameType | None) -> list[StackFrame]:
    """Project frames of a live frame chain, innermost first."""
    out = []
    while frame is not None:
        if is_project_file(frame.f_code.co_filename):
            out.append(_frame_of(frame.f_code, frame.f_lineno))
        frame = frame.f_back
    return out


def frames_from_traceback(tb: TracebackType | None) -> list[StackFrame]:
    """Project frames of an exception traceback, innermost first."""
    out = []
    while tb is not None:
        if is_project_file(tb.tb_frame.f_code.co_filename):
            out.append(_frame_of(tb.tb_frame.f_code, tb.tb_lineno))
        tb = tb.tb_next
    out.reverse()
    return out


@dataclasses.dataclass
class GoroutineDump:
    """One goroutine in a crash dump: id, name, state, where it waits, where it was created."""

    gid: int
    name: str
    state: str
    wait: str | None
    created_by: str | None
    stack: list[StackFrame]

    def to_json(self) -> dict:
        """The dump as JSON-able data (stack frames via ``StackFrame.to_json``)."""
        return {
            "gid": self.gid,
            "name": self.name,
            "state": self.state,
            "wait": self.wait,
            "created_by": self.created_by,
            "stack": [f.to_json() for f in self.stack],
        }

    def render(self) -> str:
        """Go-like text: ``goroutine N [name] state on wait``, frames, ``created by``."""
        head = f"goroutine {self.gid} [{self.name}] {self.state}"
        if self.wait:
            head += f" on {self.wait}"
        lines = [head]
        lines += [f"    {f}" for f in self.stack] or ["    (no project frames)"]
        if self.created_by:
            lines.append(f"    created by {self.created_by}")
        return "\n".join(lines)


class GoFailure(Exception):
    """Base of every failure the runtime reports. Subclasses fix ``kind``.

    Attributes: ``kind`` (str), ``detail`` (the Go-style message), ``goroutine`` (gid of the
    failing goroutine or None), ``dumps`` (list[GoroutineDump], the failing one first),
    ``decision`` (decision index when it happened), ``now`` (virtual seconds), ``cause``
    (the original exception for a goroutine panic).
    """

    kind = "failure"
    fatal = True  # Go "fatal error" (unrecoverable) as opposed to a panic
    # Go's own message for this failure (after ``fatal error: `` / ``panic: ``), or None where Go
    # prints nothing of the kind (a leak is goleak's report, a step limit is ours): docs/RUNTIME.md#failures
    go_message: str | None = None

    def __init__(self, detail: str, *, cause: BaseException | None = None, obj: str | None = None):
        super().__init__(detail)
        self.detail = detail
        self.cause = cause
        self.obj = obj  # label of the object whose operation failed (a map), when there is one
        # what that object is across runs: its declared name, else where it was made (creation_site);
        # ``obj`` of an unnamed one (``map#2``) is a per-run serial and names nothing across runs
        self.obj_site: str | None = None
        self.racing: int | None = None  # gid of the goroutine caught mid-operation on it (a map writer)
        self.goroutine: int | None = None
        self.goroutine_name: str | None = None
        self.dumps: list[GoroutineDump] = []
        self.decision: int = 0
        self.step: int = 0
        self.now: float = 0.0
        self.subject: str | None = None  # what it happened on, e.g. ``map opts.DefaultNamespaces``
        # The Go versions the failure needs, when the run took a path only some have (a stale
        # timer value under Go <= 1.22 timers); None: every Go the run models.
        self.go_versions: str | None = None
        # an assertion failure of a traced run: the state it read and who last wrote it (invariant.py)
        self.written_by: str | None = None
        self.checked_state: list[str] = []  # the labels of the race-checked locations it read

    @property
    def exc_class(self) -> str:
        """Class name of the original exception for panics, else of this failure."""
        return type(self.cause).__name__ if self.cause is not None else type(self).__name__

    @property
    def stack(self) -> list[StackFrame]:
        """Project frames of the failing goroutine, innermost first."""
        return self.dumps[0].stack if self.dumps else []

    @property
    def racing_site(self) -> str | None:
        """Innermost project function of the ``racing`` goroutine (the other side of the race),
        from the crash dump; None when unknown."""
        frame = self._racing_frame()
        return frame.func if frame is not None else None

    @property
    def go_racing_site(self) -> str | None:
        """:attr:`racing_site` as a user reads it: the Go function when declared."""
        frame = self._racing_frame()
        return (frame.go_func or frame.func) if frame is not None else None

    def _racing_frame(self) -> StackFrame | None:
        if self.racing is None:
            return None
        for d in self.dumps:
            if d.gid == self.racing and d.stack:
                return d.stack[0]
        return None

    @property
    def crash_state(self) -> list[str]:
        """Top three project function names of the failing goroutine (no line numbers): what
        the signature hashes (Python names, stable whatever the Go declarations say)."""
        return [f.func for f in self.stack[:3]]

    @property
    def go_crash_state(self) -> list[str]:
        """The crash state as a user reads it, frame for frame the same as :attr:`crash_state`:
        each frame's Go function and ``file.go:line`` when declared
        (``objectChecker.Stop (wait_for_controlled_pods.go:713)``), else its Python function."""
        return [go_frame_text(f) for f in self.stack[:3]]

    # What the crash state's frames are: ``stack`` (the failing goroutine's call chain, innermost
    # first), ``race`` (the two racing accesses' sites) or ``lock cycle`` (one frame per goroutine
    # of the cycle). Views show the last two as sides, never as a chain (fuzzfarm/views.py).
    crash_state_shape = "stack"

    def __str__(self) -> str:
        where = " <- ".join(f.shown for f in self.stack[:3]) or "(no project frames)"
        who = f"goroutine {self.goroutine} [{self.goroutine_name}]" if self.goroutine else "runtime"
        needs = f" [needs {self.go_versions}]" if self.go_versions else ""
        return f"{self.kind}: {self.detail} in {who} at {where} (decision {self.decision}, t={self.now:g}s){needs}"

    @property
    def go_says(self) -> str | None:
        """The line Go's runtime would print first (``fatal error: concurrent map writes``,
        ``panic: close of closed channel``), or None where Go has no such line."""
        if self.go_message is None:
            return None
        return f"{'fatal error' if self.fatal else 'panic'}: {self.go_message}"

    def render(self) -> str:
        """A Go-like crash dump: Go's own first line (when Go has one), our header line (and what
        it happened on), then every goroutine's stack."""
        head = str(self) + (f"\non: {self.subject}" if self.subject else "")
        if self.written_by:
            head += "\n" + self.written_by
        if self.go_says:
            head = f"{self.go_says}\n{head}"
        return "\n\n".join([head] + [d.render() for d in self.dumps])

    def to_json(self) -> dict:
        """Everything deterministic about the failure as JSON-able data (no exception objects)."""
        return {
            "kind": self.kind,
            "exc_class": self.exc_class,
            "message": self.detail,
            "object": self.obj,
            "object_site": self.obj_site,
            "racing": self.racing,
            "goroutine": self.goroutine,
            "goroutine_name": self.goroutine_name,
            "crash_state": self.crash_state,
            "go_crash_state": self.go_crash_state,
            "crash_state_shape": self.crash_state_shape,
            "subject": self.subject,
            "decision": self.decision,
            "step": self.step,
            "now": self.now,
            "dumps": [d.to_json() for d in self.dumps],
            **({"go_versions": self.go_versions} if self.go_versions else {}),
            **({"written_by": self.written_by} if self.written_by else {}),
        }


class GoroutinePanic(GoFailure):
    """An uncaught exception in a goroutine (Go: ``panic: ...``, exit 2). ``cause`` keeps it."""

    kind = "goroutine panic"
    fatal = False

    @property
    def go_message(self) -> str:  # type: ignore[override]
        """Go's text where Go would panic the same way (a nil func call: ``runtime error:
        invalid memory address or nil pointer dereference``), else the panic's own value."""
        return (go_text(self.cause) if self.cause is not None else None) or self.detail

    @property
    def go_says(self) -> str | None:
        """Go's first line; an exception that carries its own (``go_line``: a failed Go test's
        ``--- FAIL: TestX: ...``, which Go prints with no ``panic:``) says that."""
        line = getattr(self.cause, "go_line", None)
        if isinstance(line, str):
            return line
        if isinstance(self.cause, PORT_ERRORS) and go_text(self.cause) is None:
            return None  # the port's own Python error: Go would print nothing like it
        return super().go_says


class ConcurrentMapWrites(GoFailure):
    """``fatal error: concurrent map writes`` (Go runtime map, hashWriting entry/exit check)."""

    kind = "concurrent map writes"
    go_message = "concurrent map writes"


class ConcurrentMapReadWrite(GoFailure):
    """``fatal error: concurrent map read and map write``."""

    kind = "concurrent map read and map write"
    go_message = "concurrent map read and map write"


class ConcurrentMapIterationWrite(GoFailure):
    """``fatal error: concurrent map iteration and map write``."""

    kind = "concurrent map iteration and map write"
    go_message = "concurrent map iteration and map write"


class Deadlock(GoFailure):
    """``fatal error: all goroutines are asleep - deadlock!``

    ``cycle``: the top project function of each goroutine in the lock cycle that caused it,
    in a stable order (``fuzzfarm.gosim.waitfor``), or None when no lock cycle is involved. With
    a cycle it is the crash state, so one cycle is one bucket wherever ``main`` waits.
    """

    kind = "deadlock"
    go_message = "all goroutines are asleep - deadlock!"
    cycle: list[str] | None = None
    cycle_text: str | None = None  # ``G2 f (x.py:3) waits for mu held by G3; ...``

    @property
    def crash_state(self) -> list[str]:
        if self.cycle:
            return list(self.cycle[:3])
        return super().crash_state

    go_cycle: list[str] | None = None  # ``cycle`` in Go's names (``GoFunc (file.go:line)``), same order

    @property
    def go_crash_state(self) -> list[str]:
        if self.go_cycle:
            return list(self.go_cycle[:3])
        return super().go_crash_state

    @property
    def crash_state_shape(self) -> str:  # type: ignore[override]
        return "lock cycle" if self.cycle else "stack"

    def render(self) -> str:
        text = super().render()
        if self.cycle_text:
            head, _, rest = text.partition("\n")
            text = f"{head}\nlock cycle: {self.cycle_text}\n{rest}"
        return text

    def to_json(self) -> dict:
        out = super().to_json()
        out["cycle"] = self.cycle
        out["cycle_text"] = self.cycle_text
        return out


class GoroutineLeak(GoFailure):
    """Goroutines still alive once main returned and everything that could run did."""

    kind = "goroutine leak"


class NegativeWaitGroupCounter(GoFailure):
    """``panic: sync: negative WaitGroup counter``."""

    kind = "negative WaitGroup counter"
    go_message = "sync: negative WaitGroup counter"
    fatal = False


class WaitGroupReuse(GoFailure):
    """``panic: sync: WaitGroup is reused before previous Wait has returned``."""

    kind = "WaitGroup reused before previous Wait returned"
    go_message = "sync: WaitGroup is reused before previous Wait has returned"
    fatal = False


class CloseOfClosedChannel(GoFailure):
    """``panic: close of closed channel``."""

    kind = "close of closed channel"
    go_message = "close of closed channel"
    fatal = False


class CloseOfNilChannel(GoFailure):
    """``panic: close of nil channel``."""

    kind = "close of nil channel"
    go_message = "close of nil channel"
    fatal = False


class SendOnClosedChannel(GoFailure):
    """``panic: send on closed channel``."""

    kind = "send on closed channel"
    go_message = "send on closed channel"
    fatal = False


class UnlockOfUnlockedMutex(GoFailure):
    """``fatal error: sync: unlock of unlocked mutex`` (also RWMutex unlock/runlock)."""

    kind = "unlock of unlocked mutex"
    # Go's three texts (sync/mutex.go, sync/rwmutex.go): the detail is Go's own for RWMutex
    _GO_TEXTS = ("sync: unlock of unlocked mutex", "sync: RUnlock of unlocked RWMutex",
                 "sync: Unlock of unlocked RWMutex")

    @property
    def go_message(self) -> str:  # type: ignore[override]
        """``sync: unlock of unlocked mutex``, or the RWMutex form Go prints for ``RUnlock`` /
        ``Unlock`` of an RWMutex (``sync: RUnlock of unlocked RWMutex``)."""
        return self.detail if self.detail in self._GO_TEXTS else self._GO_TEXTS[0]


class StepLimitExceeded(GoFailure):
    """More scheduling steps than the run allows: a livelock or an unfair spin loop."""

    kind = "step limit exceeded"


class DataRace(GoFailure):
    """``WARNING: DATA RACE``: two accesses to one location, at least one a write, not ordered
    by happens-before. ``access`` / ``previous``: ``(op, gid, goroutine name, site, created
    by)`` of the current and the earlier access; ``location``: what was accessed (e.g.
    ``Elector.observed``). ``crash_state`` is both sites' functions, sorted: the same race
    found from either side lands in one bucket; ``go_crash_state`` the same two sites in the same
    order, in Go's names (not the failing goroutine's stack: the two are sides, not a chain)."""

    kind = "data race"
    crash_state_shape = "race"

    def __init__(self, detail: str, *, location: str = "", access=None, previous=None,
                 previous_state: str = "finished"):
        super().__init__(detail)
        self.location = location
        self.access = access
        self.previous = previous
        self.previous_state = previous_state

    def _sites(self) -> list[StackFrame]:
        """Both accesses' sites, sorted by Python function (stable: equal ones keep their order)."""
        sites = [a[3] for a in (self.access, self.previous) if a is not None and a[3] is not None]
        return sorted(sites, key=lambda s: s.func)

    @property
    def crash_state(self) -> list[str]:
        return [s.func for s in self._sites()]

    @property
    def go_crash_state(self) -> list[str]:
        return [go_frame_text(s) for s in self._sites()]

    def report(self) -> str:
        """The report in Go's shape: the current access, the previous conflicting access,
        where each goroutine was created."""
        lines = ["WARNING: DATA RACE"]
        for head, a in (("", self.access), ("Previous ", self.previous)):
            op, gid, name, site, created = a
            lines.append(f"{head}{op.lower() if head else op} at {self.location} by goroutine {gid} [{name}]:")
            lines.append(f"  {site if site is not None else '(no project frame)'}")
            lines.append("")
        goroutines = [(self.access, "running")]
        if self.previous[1] != self.access[1]:
            goroutines.append((self.previous, self.previous_state))
        for (op, gid, name, site, created), state in goroutines:
            lines.append(f"Goroutine {gid} [{name}] ({state}) created at:")
            lines.append(f"  {created or '(the run started it: main)'}")
        return "\n".join(lines)

    def render(self) -> str:
        return "\n\n".join([str(self), self.report()] + [d.render() for d in self.dumps])

    def to_json(self) -> dict:
        out = super().to_json()
        out["race"] = {
            "location": self.location,
            "access": _access_json(self.access),
            "previous": _access_json(self.previous),
        }
        return out


def _access_json(a) -> dict | None:
    if a is None:
        return None
    op, gid, name, site, created = a
    return {"op": op, "goroutine": gid, "goroutine_name": name,
            "site": site.to_json() if site is not None else None, "created_by": created}


class SchedulingError(Exception):
    """A replayed schedule does not fit the run (divergence). Not a bug in the program."""


ALL_FAILURES: tuple[type[GoFailure], ...] = (
    GoroutinePanic,
    ConcurrentMapWrites,
    ConcurrentMapReadWrite,
    ConcurrentMapIterationWrite,
    Deadlock,
    GoroutineLeak,
    NegativeWaitGroupCounter,
    WaitGroupReuse,
    CloseOfClosedChannel,
    CloseOfNilChannel,
    SendOnClosedChannel,
    UnlockOfUnlockedMutex,
    StepLimitExceeded,
    DataRace,
)


def first_project_frame_of(frame: FrameType | None) -> StackFrame | None:
    """The innermost project frame of a live frame chain, or None."""
    while frame is not None:
        if is_project_file(frame.f_code.co_filename):
            return _frame_of(frame.f_code, frame.f_lineno)
        frame = frame.f_back
    return None


@functools.lru_cache(maxsize=4096)
def _site_text(code, lineno: int) -> str:
    return str(_frame_of(code, lineno))


@functools.lru_cache(maxsize=4096)
def _creation_text(code, lineno: int) -> str:
    f = _frame_of(code, lineno)
    return f"{f.go_func} ({f.go_site})" if f.go_func else f"{f.func} ({f.file}:{f.line})"


def creation_site(frame: FrameType | None) -> str | None:
    """Where an object is made, as the same text in every run: ``GoFunc (file.go:line)`` when the
    innermost project frame is a port function declared with ``gonames.go_func``, else
    ``func (file.py:line)``; None outside project code. What identifies an unnamed map across
    runs (root-cause groups), where its label's serial (``map#2``) does not."""
    while frame is not None:
        code = frame.f_code
        if is_project_file(code.co_filename):
            return _creation_text(code, frame.f_lineno)
        frame = frame.f_back
    return None


def project_site(frame: FrameType | None) -> str | None:
    """``func (file:line)`` of the innermost project frame of a live frame chain, or None
    (cached per code object and line: ``go`` statements call it for every goroutine)."""
    while frame is not None:
        code = frame.f_code
        if is_project_file(code.co_filename):
            return _site_text(code, frame.f_lineno)
        frame = frame.f_back
    return None
