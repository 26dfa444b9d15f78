"""HC-15: controller check-then-act on a lagging informer cache creates duplicate children.

openshift/hive PR #518 "fix clusterprovision creation race" (same pattern: #527,
kaito-project/kaito #2177, kubeflow/common #139). The reconcile worker W lists the parent's
children from the informer *cache*; if there are none it creates one through the API and
updates the parent's status, which requeues the parent. If pass 2 runs before the informer I
has delivered Add(child) into the cache, it creates a second child. Go does not crash; the
invariant "at most one child per parent" fails at quiescence (an AssertionError here).

Fixed: controller expectations: W records that it expects one creation before creating; the
Add handler lowers the expectation; while it is outstanding W skips the decision.

Go lines: hive@31f6f6f2c1d2299b8a40e89d24307d81dd1ec9e7
pkg/controller/clusterdeployment/clusterdeployment_controller.go (the first parent of the fix's merge
339584af6). The worker loop and the informer are controller-runtime's and client-go's; the port
models them without citing their source.
"""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import go_func, not_ported

ID = "HC-15"
TITLE = "controller check-then-act on a lagging cache: duplicate children"
SOURCE = "https://github.com/openshift/hive/pull/518"
KIND = "goroutine panic"
KINDS = (KIND,)
EXC_CLASS = "AssertionError"
DEPTH = 1
RUN_KW = {"check_leaks": True}

QUIESCE_AT = 5.0


@not_ported("builds the scenario's main for one variant")
def _controller(expectations: bool):
    @not_ported("scenario driver: the controller's two goroutines, one ClusterDeployment queued, quiescence")
    def main():
        api_children = []  # the API server's set of children
        cache = {}  # parent -> children seen by the informer (thread-safe in Go: behind mu)
        expected = {}  # parent -> creations not yet observed
        mu = gosim.Mutex("cache.mu")
        queue = gosim.Chan(16, name="workqueue")
        watch = gosim.Chan(16, name="watch")
        stop = gosim.Chan(name="stop")
        wg = gosim.WaitGroup("controller")

        @go_func("ReconcileClusterDeployment.startNewProvision", "clusterdeployment_controller.go:461")
        def reconcile(parent):
            with mu:
                if expectations and expected.get(parent, 0) > 0:
                    return  # the Add handler requeues the parent once it has seen the child
                have = list(cache.get(parent, ()))  # :466 existingProvisions: a List from the cache
            if have:
                return  # :473 adoptProvision
            if expectations:
                with mu:
                    expected[parent] = expected.get(parent, 0) + 1
            child = f"{parent}-provision-{len(api_children)}"  # generated name
            gosim.gosched()  # :569 r.Create: POST to the API server
            api_children.append(child)  # :569
            gosim.select(gosim.send_case(watch, (parent, child)), gosim.recv_case(stop))
            gosim.gosched()  # status update of the parent ...
            gosim.select(gosim.send_case(queue, parent), gosim.recv_case(stop))  # ... requeues it

        @not_ported("controller-runtime's reconcile worker loop, modelled, its source not cited")
        def worker():  # W
            try:
                while True:
                    idx, parent, _ = gosim.select(gosim.recv_case(stop), gosim.recv_case(queue))
                    if idx == 0:
                        return
                    reconcile(parent)
            finally:
                wg.done()

        @not_ported("client-go's informer delivering watch events into the cache, modelled, its source not cited")
        def informer():  # I
            try:
                while True:
                    idx, ev, _ = gosim.select(gosim.recv_case(stop), gosim.recv_case(watch))
                    if idx == 0:
                        return
                    parent, child = ev
                    gosim.gosched()  # watch latency
                    with mu:
                        cache.setdefault(parent, []).append(child)
                        if expectations:
                            expected[parent] -= 1
                    if expectations:
                        gosim.select(gosim.send_case(queue, parent), gosim.recv_case(stop))
            finally:
                wg.done()

        wg.add(2)
        gosim.go(worker, name="reconcileWorker")
        gosim.go(informer, name="provisionInformer")
        queue.send("cd-1")
        gosim.sleep(QUIESCE_AT)
        stop.close()
        wg.wait()
        assert len(api_children) <= 1, f"more than one child for parent: {api_children}"

    return main


buggy = _controller(expectations=False)
fixed = _controller(expectations=True)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
