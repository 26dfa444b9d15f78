"""A crash dump starts with the line Go's runtime would print (``fatal error: concurrent map
writes``, ``panic: close of closed channel``), and that line is the one docs/RUNTIME.md's
failure table promises for each class; a nil func call reads as Go's nil dereference."""

from __future__ import annotations

import pathlib
import re

import pytest

from fuzzfarm import gosim
from fuzzfarm.gosim import failures as F
from fuzzfarm.strategies import BytesStrategy

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "RUNTIME.md"
_ROW = re.compile(r"^\| `(\w+)` \| `[^`]*` \| (.*?) \| (yes|no) \|")


def _table() -> dict[str, str | None]:
    out = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        m = _ROW.match(line)
        if m and hasattr(F, m.group(1)):
            spans = re.findall(r"`([^`]+)`", m.group(2))
            out[m.group(1)] = spans[0] if spans and m.group(2).startswith("`") else None
    return out


ROWS = _table()


def test_the_doc_table_lists_the_failures():
    assert {"ConcurrentMapWrites", "Deadlock", "CloseOfClosedChannel", "GoroutineLeak", "StepLimitExceeded",
            "UnlockOfUnlockedMutex", "NegativeWaitGroupCounter"} <= set(ROWS)


@pytest.mark.parametrize("cls", sorted(c for c in ROWS if c != "GoroutinePanic"))
def test_go_says_what_the_doc_says(cls):
    f = getattr(F, cls)("detail")
    assert f.go_says == ROWS[cls]
    if ROWS[cls] is not None:
        assert f.render().splitlines()[0] == ROWS[cls]
        assert f.go_says.startswith("fatal error: " if f.fatal else "panic: ")


def test_a_nil_func_call_reads_as_gos_nil_dereference():
    def main():
        f = None

        def w():
            f()
        gosim.go(w)
        gosim.sleep(1)

    fail = gosim.run(main, strategy=BytesStrategy(b"")).failure
    assert fail.render().splitlines()[0] == "panic: runtime error: invalid memory address or nil pointer dereference"
    assert "TypeError" in fail.detail  # the Python exception stays, as detail


def test_a_programs_own_panic_keeps_its_value():
    def main():
        raise ValueError("boom")

    fail = gosim.run(main, strategy=BytesStrategy(b"")).failure
    assert fail.go_says == "panic: ValueError: boom"


@pytest.mark.parametrize("name, site", [
    (5, "tracker.go:26"), ("", "tracker.go:26"), ("a\nb", "tracker.go:26"), (None, "x.go:1"),
    ("T.Stop", None), ("T.Stop", 5), ("T.Stop", "x.go:²"), ("T.Stop", "x.go:0"), ("T.Stop", "a:b.go:3"),
    ("T.Stop", "x.go:٣"), ("T.Stop", "x.py:3"), ("T.Stop", "x.go:"),
])
def test_a_bad_go_declaration_is_refused_where_it_is_written(name, site):
    """At import, with a ValueError naming the form: not later, as a failure of every run."""
    with pytest.raises(ValueError, match="go_func"):
        gosim.go_func(name, site)


def test_one_function_gets_one_declaration():
    def f():
        pass
    gosim.go_func("T.Stop", "t.go:3")(f)
    with pytest.raises(ValueError, match="declared twice"):
        gosim.go_func("T.Close", "t.go:9")(f)
    with pytest.raises(ValueError, match="declared twice"):
        gosim.not_ported("scaffold")(f)
