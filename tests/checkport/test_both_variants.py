"""A twin has some functions twice, once per variant at its own revision's lines (etcd's
simple_token.go before and at #7492, client-go's workqueue ShutDown before and at #119554); a
port's fixed form cites the fixed lines under the same declaration. check-port accepts a ``# :N``
site that one of the declaration's matching functions covers, and names them all when none does."""

from __future__ import annotations

from fuzzfarm.portcheck.check import check
from fuzzfarm.portcheck.citations import Citation
from fuzzfarm.portcheck.gosource import GoFunction, GoSource

# client-go util/workqueue/queue.go: ShutDown at the fix's parent (240-243) and at the fix (240-247)
SOURCE = GoSource("gotwins/examples/hc19", True, [
    GoFunction("workqueue.Type.ShutDown", 2, "util/workqueue/queue.go", 240, 243, "queue_buggy.go:4"),
    GoFunction("workqueue.Type.ShutDown", 2, "util/workqueue/queue.go", 240, 247, "queue_fixed.go:4"),
])


def _cites(*sites: int) -> list[Citation]:
    decl = Citation("m", "m.py", 10, "T.shut_down_fixed", "Type.ShutDown", "queue.go", 240)
    return [decl] + [Citation("m", "m.py", 11 + i, "T.shut_down_fixed", "Type.ShutDown", "queue.go", n, site=True)
                     for i, n in enumerate(sites)]


def test_a_site_of_either_variant_is_inside():
    out = check(_cites(241, 244, 246), SOURCE)
    assert out.mismatches == [] and out.sites == 3, out


def test_a_site_outside_both_names_both_spans():
    lines = check(_cites(241, 250), SOURCE).mismatches
    assert len(lines) == 1 and "'# :250' site is outside Type.ShutDown (queue.go:240-243, queue.go:240-247)" in lines[0]
