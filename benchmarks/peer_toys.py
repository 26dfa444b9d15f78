"""The toy races of ``benchmarks/toys`` written for the peer tool interleave-test (Python threads
under its controlled scheduler), for ``benchmarks/peers_measure.py``.

Same logic as ``benchmarks/toys/late_cancel.py`` and ``shared_map.py``, statement for statement:
goroutines become ``interleave_test.spawn`` threads, ``gosim.Mutex`` a ``threading.Lock``, a
context an ``Event`` whose ``set`` is the cancel func, a WaitGroup/done channel a ``join``. Go's
map write check is ``GoMap`` below, the same check as ``fuzzfarm.gosim.Map`` (entry check, XOR
toggle, the write, exit check); the peer puts its own scheduling points between its bytecodes,
so the window is there without extra points. Runs only where interleave-test is importable
(Python >= 3.12); it imports nothing of fuzzfarm, so the peer's interpreter needs only the peer.
This file is what the peer traces (``include=[this file]``): the measuring code is not.
"""

from __future__ import annotations

import threading

import interleave_test as it


class ConcurrentMapWrites(Exception):
    """Go's fatal ``concurrent map writes``."""


class GoMap:
    """A Go map's hashWriting check on writes (as ``fuzzfarm.gosim.Map`` does it)."""

    def __init__(self, init=None):
        self.d = dict(init or {})
        self.writing = False

    def _write(self, op, k, v=None):
        if op == "del" and not self.d:  # mapdelete on an empty map returns before the check
            return None
        if self.writing:
            raise ConcurrentMapWrites("concurrent map writes")
        self.writing = not self.writing
        old = None
        if op == "set":
            self.d[k] = v
        else:
            old = self.d.pop(k, None)
        if not self.writing:
            raise ConcurrentMapWrites("concurrent map writes")
        self.writing = False
        return old

    def __setitem__(self, k, v):
        self._write("set", k, v)

    def pop(self, k):
        return self._write("del", k)

    def clone(self):
        return GoMap(self.d)


# ---- late_cancel (benchmarks/toys/late_cancel.py) ---------------------------------------------
class _Checker:
    def __init__(self):
        self.lock = threading.Lock()
        self.cancel = None

    def stop(self):
        with self.lock:
            self.cancel()  # None when the checker thread has not run yet: TypeError (Go: nil func call)


def late_cancel(fixed: bool):
    def main():
        mlock = threading.Lock()
        checkers = GoMap()

        def run_checker(c, ctx):  # C
            if not fixed:
                with c.lock:
                    c.cancel = ctx.set
            ctx.wait()

        def add(k):
            c = _Checker()
            ctx = threading.Event()
            if fixed:
                c.cancel = ctx.set
            c.lock.acquire()
            it.spawn(run_checker, c, ctx, name="checker")
            c.lock.release()
            with mlock:
                checkers[k] = c

        def delete(k):
            with mlock:
                c = checkers.pop(k)
                c.stop()

        def worker():  # W
            for op, k in (("add", "k"), ("delete", "k")):
                (add if op == "add" else delete)(k)

        it.spawn(worker, name="W").join()  # main waits for W (Go: <-done)

    return main


# ---- shared_map (benchmarks/toys/shared_map.py) -----------------------------------------------
def shared_map(n: int, fixed: bool):
    def main():
        options = {"labels": GoMap({"a": "1", "b": "2"})}

        def builder(i):
            mine = dict(options)  # shallow copy: the inner map is shared
            if fixed:
                mine["labels"] = options["labels"].clone()
            labels = mine["labels"]
            for k in ("a", "b"):
                labels[k] = f"builder-{i}"

        tasks = [it.spawn(builder, i, name=f"builder{i}") for i in range(n)]
        for t in tasks:  # Go: wg.Wait()
            t.join()

    return main


BUG = {"late_cancel": TypeError, "shared_map": ConcurrentMapWrites}
