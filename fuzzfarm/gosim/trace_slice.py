"""The slice of a failing run's trace that matters: the events on the objects in the failure.

A minimized reproducer of a larger port still has a timeline of a hundred events or more, and
the bug is in a handful of them. The slice is taken from the runtime's own records, never
guessed from names:

* the objects in the failure: a data race's location (``DataRace.location``); the map of a
  map failure (``GoFailure.obj``); for a deadlock or a leak, the objects each goroutine still
  blocked at the end waits on (its last ``block`` event, a select's channels included: the lock
  and channel wait cycle); for a channel panic and every other failure, the objects of the
  failing goroutine's last events (the channel it closed or sent on, the map it read a nil
  func from, the WaitGroup it took below zero);
* the goroutines involved: the failing one, both sides of a race, and every goroutine with an
  event on one of those objects;
* the events: for each goroutine and object, its last :data:`PER_PAIR` events on that object
  (a lock still held is its holder's last event on the lock), then the failure event itself.

What it leaves out is still in the full timeline, which follows it in ``trace.txt``.
"""

from __future__ import annotations

import dataclasses

from . import failures as F

PER_PAIR = 3  # events kept per (goroutine, object): the last access, and the two before it
LAST_OBJECTS = 3  # a panic's objects: those of the failing goroutine's last events, at most this many
_RELEASES = ("unlock", "runlock")
_CHANNEL_KINDS = ("close of closed channel", "send on closed channel")
_MAP_KINDS = ("concurrent map writes", "concurrent map read and map write", "concurrent map iteration and map write")


@dataclasses.dataclass
class Slice:
    """``events``: indices into the trace's events, in order; ``objects`` (labels) and
    ``goroutines`` (gids) in the failure; ``why``: how the objects were chosen; ``on``: per event
    of ``events``, the objects it is on (``Event.objs``, which ``to_json`` of a trace leaves out)."""

    events: list[int]
    objects: list[str]
    goroutines: list[int]
    why: str
    on: list[list[str]] = dataclasses.field(default_factory=list)

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def _last_block(events, gid: int):
    for i in range(len(events) - 1, -1, -1):
        e = events[i]
        if e.gid == gid and e.kind not in ("wake", "failure"):
            return i if e.kind == "block" else None
    return None


def _objects(events, failure: F.GoFailure) -> tuple[list[str], str]:
    if isinstance(failure, F.DataRace):
        return [failure.location], "the racing location"
    if failure.kind in _MAP_KINDS and failure.obj:
        return [failure.obj], "the map both goroutines used"
    objs: list[str] = []
    if isinstance(failure, (F.Deadlock, F.GoroutineLeak)):
        for d in failure.dumps:  # every goroutine still alive, the failing one first
            i = _last_block(events, d.gid)
            for o in events[i].objs if i is not None else ():
                if o not in objs:
                    objs.append(o)
        return objs, "what the blocked goroutines wait on"
    g = failure.goroutine
    if failure.checked_state:  # an assertion: the race-checked state it read (invariant.py)
        return list(failure.checked_state), "the state the failing assertion read"
    if failure.kind in _CHANNEL_KINDS:  # the channel of the failing close or send
        last = next((e for e in reversed(events) if e.gid == g and e.objs), None)
        return list(last.objs) if last is not None else [], f"the channel G{g} closed or sent on"
    # a panic on a value (a nil func or pointer, a bad index) follows the goroutine's read of
    # race-checked state at the failing frame's own line: that state leads, whatever locks the
    # goroutine let go of, and whatever its deferred functions read, on the way out (Go runs the
    # defers while the panic unwinds); without such a read, its last read
    reads = [e for e in reversed(events) if e.gid == g and e.kind == "read" and e.objs]
    top = failure.stack[0] if failure.stack else None
    at = f"{top.file}:{top.line}" if top is not None else None
    last_read = next((e for e in reads if at and e.site.rstrip("]").endswith((" " + at, "[" + at))),
                     reads[0] if reads else None)
    objs = list(last_read.objs) if last_read is not None else []
    for e in reversed(events):
        if e.gid == g and e.objs:
            for o in e.objs:
                if o not in objs:
                    objs.append(o)
            if len(objs) >= LAST_OBJECTS:
                break
    return objs[:LAST_OBJECTS], f"what G{g} used last before it failed"


def failure_slice(events, failure: F.GoFailure | None) -> Slice | None:
    """The slice of ``events`` (a ``Trace``'s) for ``failure``; None without a failure."""
    if failure is None:
        return None
    objs, why = _objects(events, failure)
    on = set(objs)
    keep: dict[tuple[int, str], list[int]] = {}
    for i, e in enumerate(events):
        for o in e.objs:
            if o in on:
                keep.setdefault((e.gid, o), []).append(i)
    if isinstance(failure, (F.Deadlock, F.GoroutineLeak)):
        # a goroutine that let go of a lock it used is not in the wait cycle: its lock/unlock pairs
        # are history (the full timeline keeps them)
        keep = {k: idx for k, idx in keep.items() if events[idx[-1]].kind not in _RELEASES}
    chosen = {i for idx in keep.values() for i in idx[-PER_PAIR:]}
    gids = [failure.goroutine] if failure.goroutine else []
    if isinstance(failure, F.DataRace):
        gids += [a[1] for a in (failure.access, failure.previous) if a is not None]
    gids += sorted({g for g, _ in keep})
    if failure.goroutine:  # how the failing goroutine got there: its own last events
        own = [i for i, e in enumerate(events) if e.gid == failure.goroutine and e.kind not in ("failure", "preempt")]
        chosen.update(own[-PER_PAIR:])
    fail = next((i for i in range(len(events) - 1, -1, -1) if events[i].kind == "failure"), None)
    if fail is not None:
        chosen.add(fail)
    seen: list[int] = []
    for g in gids:
        if g and g not in seen:
            seen.append(g)
    idx = sorted(chosen)
    return Slice(idx, objs, seen, why, [list(events[i].objs) for i in idx])


def render_slice(trace, failure: F.GoFailure | None, legend) -> str:
    """The text that leads ``trace.txt``: the slice's events in the timeline's format, then the
    involved goroutines' stacks (a data race: both accesses first, in Go's report shape)."""
    sl = failure_slice(trace.events, failure)
    if sl is None:
        return ""
    names = {g.gid: g.name for g in legend}
    lines = [f"failure: {failure}"] + ([failure.written_by] if failure.written_by else []) + [f"what matters: {len(sl.events)} of {len(trace.events)} events, on "
             f"{', '.join(sl.objects) or '(no object: the failing goroutine used none)'} ({sl.why})",
             "goroutines: " + ", ".join(f"G{g} {names.get(g, '?')}" for g in sl.goroutines), ""]
    lines += trace.render_rows([trace.events[i] for i in sl.events])
    if isinstance(failure, F.DataRace):
        lines += ["", failure.report()]
    dumps = [d for d in failure.dumps if d.gid in sl.goroutines]
    if dumps:
        lines += ["", "stacks of these goroutines at the failure:"]
        lines += [d.render() for d in dumps]
    return "\n".join(lines)
