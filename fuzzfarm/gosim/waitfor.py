"""The wait-for graph of a deadlocked run, and its lock cycle.

A goroutine parked on a lock (``Mutex``, ``RWMutex``) waits for the goroutines holding it
(``holders()``). A cycle in that graph is the deadlock's cause. Where the other goroutines wait,
``main`` included, is incidental. So the deadlock's crash state is the cycle's goroutines, each
by its top project frame, in a stable order (sorted by function name, then by the rest of the
frame). One lock cycle is then one bucket wherever ``main`` happens to wait. Channel waits have
no holder, so a deadlock without a lock cycle keeps the crash state of goroutine 1 (Go's
``checkdead`` reports the whole process, and its stack dump starts at goroutine 1).
"""

from __future__ import annotations

from . import failures as F


def _waits_for(g) -> list:
    obj = getattr(g, "blocked_on", None)
    holders = getattr(obj, "holders", None)
    if holders is None:
        return []
    return [h for h in holders() if h is not g]


def lock_cycle(goroutines) -> list | None:
    """The first cycle of blocked goroutines waiting for each other's locks (depth-first from
    the lowest gid, holders in their order), as a list of goroutines, or None."""
    blocked = {g.gid: g for g in goroutines if g.state == "blocked"}
    done: set[int] = set()

    def visit(g, path, on_path):
        on_path[g.gid] = len(path)
        path.append(g)
        for h in _waits_for(g):
            if h.gid not in blocked or h.gid in done:
                continue
            if h.gid in on_path:
                return path[on_path[h.gid]:]
            found = visit(h, path, on_path)
            if found:
                return found
        path.pop()
        del on_path[g.gid]
        done.add(g.gid)
        return None

    for gid in sorted(blocked):
        if gid not in done:
            found = visit(blocked[gid], [], {})
            if found:
                return found
    return None


def cycle_members(cycle: list) -> list[tuple[object, F.StackFrame | None]]:
    """``(goroutine, top project frame)`` per cycle member, in the stable order."""
    rows = []
    for g in cycle:
        frames = F.frames_from_frame(g.glet.gr_frame if g.glet is not None else None)
        rows.append((g, frames[0] if frames else None))
    # members without a project frame (``go mu.Lock``) go last, by goroutine name
    rows.sort(key=lambda r: (0, r[1].func, r[1].file, r[1].line) if r[1] is not None else (1, r[0].name, "", 0))
    return rows


def describe(rows) -> str:
    """``G2 transfer (bank.py:12) waits for mu_b held by G3; ...``."""
    parts = []
    for g, top in rows:
        obj = g.blocked_on
        holders = ", ".join(f"G{h.gid}" for h in _waits_for(g))
        parts.append(f"G{g.gid} {top if top is not None else g.name} waits for "
                     f"{getattr(obj, 'label', obj)} held by {holders}")
    return "; ".join(parts)
