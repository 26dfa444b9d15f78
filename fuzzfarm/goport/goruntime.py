"""``runtime.NumGoroutine`` for generated ports.

It is gosim's count of live goroutines plus the goroutines Go has and the port does not: under
``go test`` the main goroutine, blocked in ``t.Run`` while the test runs (``go test -race``
reads 2 at the start of a top-level test, 3 in a subtest and in a goroutine the test started:
the test goroutine(s) and main). ``rt.test_main`` records that offset on the run; a port run by
a harness of its own (its goroutine 1 is a Go program's main) has none.
"""

from __future__ import annotations

from fuzzfarm.gosim import runtime as _runtime

# goroutines a `go test` process has that the port's run does not: main (testing's m.Run,
# waiting in t.Run for the top-level test)
GO_TEST_EXTRA_GOROUTINES = 1


def num_goroutine() -> int:
    """``runtime.NumGoroutine()``: live goroutines of this run, plus Go's own under ``go test``.
    Not a scheduling point (Go's reads a counter)."""
    rt_ = _runtime._rt
    live = sum(1 for g in rt_.goroutines if g.state is not _runtime.DONE)
    return live + getattr(rt_, "go_test_extra_goroutines", 0)


# --- runtime/pprof and os.Stderr: a leak check's report (hc11, hc12) ---------------------------

class File:
    """``os.Stderr`` / ``os.Stdout`` as a profile's destination: what Go writes there is a report
    for the person reading the test's output, which a port's run has no use for (the failure's
    goroutine dumps say the same), and writing it would flood a fuzz run: written nowhere."""

    def __init__(self, name: str):
        self.name = name


STDERR, STDOUT = File("/dev/stderr"), File("/dev/stdout")

# runtime/pprof's predefined profiles (pprof.go: Lookup returns nil for any other name)
_PROFILES = ("goroutine", "threadcreate", "heap", "allocs", "block", "mutex")


class Profile:
    """``*pprof.Profile`` from ``pprof.Lookup``."""

    def __init__(self, name: str):
        self.name = name

    def write_to(self, w, debug: int):
        """``p.WriteTo(w, debug)``: to ``os.Stderr``/``os.Stdout``, nothing is kept and the error
        is nil (Go's write to a terminal or pipe does not fail a test). Not a scheduling point and
        no happens-before edge (Go's stops the world, which orders nothing for ``-race``). Another
        writer (a port's ``io.Writer``) is not modelled: a Python error, never a Go failure."""
        if not isinstance(w, File):
            raise TypeError(f"pprof.Profile.WriteTo to {type(w).__name__}: only os.Stderr and os.Stdout are modelled")
        return None


def pprof_lookup(name: str):
    """``pprof.Lookup(name)``: the profile, or nil for a name Go does not predefine (a profile
    made by ``pprof.NewProfile`` is not modelled)."""
    return Profile(name) if name in _PROFILES else None
