"""``checker.Map``: key -> checker, with no lock of its own (every caller holds ``w.lock``).

Upstream: kubernetes/perf-tests ``clusterloader2/pkg/measurement/util/checker/checker_map.go``
(unchanged from 2020-05 through the buggy 83e45df022ca and the fixed 19927c1a477e): Dispose
33-38, Add 41-46 (``Stop`` at 43), DeleteAndStop 49-56 (``Stop`` at 51). The map is a Go map,
here a race-checked gosim ``Map`` (lookups and writes are scheduling points; ``dispose``
iterates from a schedule-chosen start, Go's random map order).
"""

from __future__ import annotations

from typing import Iterator

from fuzzfarm.gosim import Map, go_func, not_ported


class CheckerMap:
    """``checker.Map`` (a map type with value receivers): ``m`` is the map itself."""

    @go_func("checker.NewMap", "checker_map.go:28")
    def __init__(self, name: str = "checkerMap"):
        self.m = Map(name=name)

    @go_func("checker.Map.Dispose", "checker_map.go:33")
    def dispose(self) -> None:
        """``Dispose`` (33-38): stop every checker in map order, then "clean up".

        Upstream rebinds its receiver, a copy of the map header, to a new map. The caller's
        map keeps every entry (docs/ports/clusterloader2.md#p1); the rebinding of ``cm`` below does the same.
        """
        cm = self.m
        for c in cm.values():  # :34
            c.stop()  # :35
        cm = Map(name="checkerMap (discarded)")  # noqa: F841 - the quirk: no effect on self.m

    @go_func("checker.Map.Add", "checker_map.go:41")
    def add(self, key: str, c) -> None:
        """``Add`` (41-46): stop the checker the key had, then store ``c``. If that stop
        panics the old entry stays (and the process dies, docs/ports/clusterloader2.md#p10)."""
        old, exists = self.m.lookup(key)  # :42
        if exists:
            old.stop()  # :43
        self.m[key] = c  # :45

    @go_func("checker.Map.DeleteAndStop", "checker_map.go:49")
    def delete_and_stop(self, key: str) -> bool:
        """``DeleteAndStop`` (49-56): stop and remove the key's checker; False if none."""
        old, exists = self.m.lookup(key)  # :50
        if exists:
            old.stop()  # :51
            del self.m[key]  # :52
            return True
        return False

    @not_ported("for _, c := range m in gather: a Go range statement, not a function")
    def values(self) -> Iterator:
        """``for _, c := range m`` (gather)."""
        return self.m.values()

    @not_ported("len(m): a Go builtin")
    def __len__(self) -> int:
        return len(self.m)

    @not_ported("the entries without scheduling points, for tests and oracles")
    def snapshot(self) -> dict:
        """The entries without scheduling points (tests and oracles only)."""
        return self.m.snapshot()
