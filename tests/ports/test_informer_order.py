"""The informer's handler runs on its own listener goroutine (client-go's processorListener):
"synced" means the initial LIST was queued, so its handler calls may come after
``StartAndSync`` returned, as upstream; they always come in order."""

from __future__ import annotations

from test_clusterloader2_support import PriorityStrategy

from fuzzfarm import gosim
from fuzzfarm.ports.clusterloader2.cluster import FakeCluster
from fuzzfarm.ports.clusterloader2.informer import Informer, start_and_sync
from fuzzfarm.ports.clusterloader2.objects import ObjectSpec, RuntimeObject


def _objects(n):
    return [RuntimeObject("test", f"obj{i}", i + 1, i + 1, ObjectSpec(1)) for i in range(n)]


def _run(strategy, n=2, **kw):
    seen = {}

    def main():
        calls = []
        stop = gosim.Chan(0, name="stop")
        i = Informer(FakeCluster(initial=_objects(n)), lambda old, new: calls.append(new.name))
        assert start_and_sync(i, stop, 60.0) is None
        seen["at_return"] = list(calls)
        gosim.sleep(1.0)  # everything queued gets handled
        seen["later"] = list(calls)
        stop.close()

    rep = gosim.run(main, strategy=strategy, **kw)
    assert rep.failure is None, rep.failure
    return seen


def test_initial_list_may_be_handled_after_start_and_sync_returns():
    seen = _run(PriorityStrategy(order=("main", "informer")))
    assert seen["at_return"] == []  # synced, and not one handler call yet
    assert seen["later"] == ["obj0", "obj1"]


def test_initial_list_may_also_be_handled_before_it_returns_and_always_in_order():
    seen = _run(PriorityStrategy(order=("informer", "main")))
    assert seen["at_return"] == ["obj0", "obj1"]
    for seed in range(30):
        # (the realistic bound: unbounded, the 60 s sync timeout may fire before the informer ran)
        assert _run(gosim_random(seed), max_starvation_s=0.1)["later"] == ["obj0", "obj1"]


def gosim_random(seed):
    from fuzzfarm.strategies import RandomStrategy

    return RandomStrategy(seed)
