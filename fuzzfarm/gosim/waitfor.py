"""The wait-for graph of a deadlocked run, and its lock cycle.

A goroutine parked on a lock (``Mutex``, ``RWMutex``) waits for the goroutines holding it
(``holders()``). A cycle in that graph is the deadlock's cause. Where the other goroutines wait,
``main`` included, is incidental. So the deadlock's crash state is the cycle's goroutines, each
by its top project frame, in a stable order: by the Go function a port frame stands for
(``gonames.go_func``, its import path left out), else by Python function name, then by the
rest of the frame. One lock cycle is then one bucket wherever ``main`` happens to wait and
whichever member blocked last, and two ports of one Go program (by hand, generated) agree.
Go's own report singles out no goroutine of the cycle: under ``go test`` a lock-order deadlock
hangs until the test's timeout, whose dump lists every goroutine (docs/RUNTIME.md, Deadlock). Channel waits have
no holder, so a deadlock without a lock cycle keeps the crash state of goroutine 1 (Go's
``checkdead`` reports the whole process, and its stack dump starts at goroutine 1).
"""

from __future__ import annotations

import re

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
    rows.sort(key=_order)
    return rows


def go_order_key(go_func: str) -> str:
    """A Go function's name as the cycle order compares it: the import path left out and
    ``(*T).M`` read as ``T.M``, so a hand port (``WatchFactory.removeHandler``) and a generated
    one (``example.com/x.(*WatchFactory).removeHandler``) of the same Go order the same."""
    if "/" in go_func:  # an import path: it and the package name after it
        go_func = go_func.rsplit("/", 1)[-1].split(".", 1)[-1]
    return re.sub(r"\(\*?(\w+)\)", r"\1", go_func)


def _order(row) -> tuple:
    """Members whose top frame names its Go function first, by that name (the order is then
    the Go's, whatever the port's Python names: hc03's hand and generated ports had opposite
    orders); then other project frames by Python name; then those with none, by goroutine name."""
    g, top = row
    if top is None:
        return (2, g.name, "", 0)
    if top.go_func:
        return (0, go_order_key(top.go_func), top.go_site or "", 0)
    return (1, top.func, top.file, top.line)


def describe(rows) -> str:
    """``G2 transfer (bank.py:12) waits for mu_b held by G3; ...``."""
    parts = []
    for g, top in rows:
        obj = g.blocked_on
        holders = ", ".join(f"G{h.gid}" for h in _waits_for(g))
        parts.append(f"G{g.gid} {top if top is not None else g.name} waits for "
                     f"{getattr(obj, 'label', obj)} held by {holders}")
    return "; ".join(parts)
