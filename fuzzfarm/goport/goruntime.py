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
