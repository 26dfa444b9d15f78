"""The gosim model of Go's ``sort.Strings`` and ``sort.Ints`` (registered in
:mod:`fuzzfarm.goport.models`): the slice sorted in place, its elements race-checked as Go's
accesses are under ``-race``.

Go sorts with pdqsort (sort/zsortinterface.go; ``slices.Sort`` since Go 1.22), which reads the
elements and swaps the ones out of order. The model reads every element once (one race-checked
read each), then writes exactly the positions whose value changes: an already sorted slice is
only read, as Go's insertion sort (n <= 12) and pdqsort's sorted-run check leave it. The order
of the accesses within the call is not Go's (no goroutine can observe it without a race, which is
reported either way); the result is Go's: strings by bytes (UTF-8 order is code point order, so
Python's ``str`` order agrees), ints numerically.
"""

from __future__ import annotations

from fuzzfarm.gosim import not_ported

from . import rt

_STD = "Go's standard library sort package: the ports pin no Go release, so no file.go:line"


def _sort(s) -> None:
    n = rt.glen(s)
    vals = [rt.at(s, i) for i in range(n)]
    for i, v in enumerate(sorted(vals)):
        if v != vals[i]:
            rt.setat(s, i, v)


@not_ported(f"sort.Strings, {_STD}")
def strings(s) -> None:
    _sort(s)


@not_ported(f"sort.Ints, {_STD}")
def ints(s) -> None:
    _sort(s)
