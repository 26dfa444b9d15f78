"""HC-20's ``# :N`` sites in ``_SharedProcessor._stop`` name the lines of upstream's
``sharedProcessor.run`` (client-go tools/cache/shared_informer.go at ada74e06, the fix's
parent). check-port only sees that a site lies inside the function (885-911), so a line off by
one inside it passes there; this pins each ported statement to the upstream line that holds the
Go statement it ports (copied below from upstream, so a reader can check it by eye)."""

from __future__ import annotations

import inspect

from fuzzfarm.examples import hc20_processor_listener_start as C
from fuzzfarm.gosim import gonames

# upstream line -> (Go statement on it at ada74e06, the Python statement that ports it)
RUN_STOP = {
    895: ("<-ctx.Done()", "stop.recv()"),
    897: ("p.listenersLock.Lock()", "self.listeners_lock.lock()"),
    898: ("defer p.listenersLock.Unlock()", "self.listeners_lock.unlock()"),
    900: ("close(listener.addCh) // Tell .pop() to stop. .pop() will tell .run() to stop", "listener.add_ch.close()"),
    908: ("p.listenersStarted = false", "self.listeners_started = False"),
    910: ("p.wg.Wait() // Wait for all .pop() and .run() to stop", "self.wg.wait()"),
}


def test_stop_sites_cite_the_lines_of_their_go_statements():
    lines = inspect.getsource(C._SharedProcessor._stop).splitlines()
    for want, (_go, py) in RUN_STOP.items():
        hits = [ln for ln in lines if ln.strip().startswith(py)]
        assert len(hits) == 1, (py, hits)
        assert gonames.cited_line(hits[0]) == want, (py, hits[0], f"upstream {_go!r} is line {want}")


def test_the_processor_constructor_cites_its_func_line():
    # `func NewSharedIndexInformerWithOptions(` is line 303 at the fix (302 at its parent); the
    # port's __init__ carries the fix's listenersRCond (:307), so it cites the fix's lines
    decl = gonames.declared(C._SharedProcessor.__init__)
    assert (decl.name, decl.file, decl.line) == ("NewSharedIndexInformerWithOptions", "shared_informer.go", 303)
