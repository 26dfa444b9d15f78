"""HC-03: lock-order inversion between an informer lock and a per-policy lock (deadlock).

ovn-org/ovn-kubernetes PR #483 "factory: defer handler removal to a goroutine" (related: PRs
#334, #466, #5027). A, the pod-informer event path, holds ``informer.lock`` while it calls
the policy's pod-delete handler, which locks ``np.lock``. B, the NetworkPolicy delete path,
holds ``np.lock`` while it removes the policy's handler, which needs ``informer.lock``. If
each takes its first lock before the other takes its second: AB/BA deadlock.

Fixed (#483): B marks the handler as a tombstone under ``np.lock`` (A skips it) and the real
removal runs in a separate goroutine that takes the informer lock on its own; B never holds
``np`` while waiting for ``informer``.

Go lines: ovn-kubernetes@8e944df815606493259849f3e7a3df306a3f2217 (the parent of the fix, commit
28d92bdbd8f931c1227f40cd5804121d24b87c73, merged as #483) go-controller/pkg/factory/factory.go and
go-controller/pkg/ovn/policy_old.go (the path the fix's commit message walks through); the fixed
delete cites policy_old.go at the fix commit. Upstream's tombstone is an atomic flag on the
handler, checked in ``forEachHandler``; the port's is ``np.deleted``, which the handler checks.
"""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import go_func, not_ported

ID = "HC-03"
TITLE = "lock-order inversion informer.lock / np.lock"
SOURCE = "https://github.com/ovn-kubernetes/ovn-kubernetes/pull/483"
KIND = "deadlock"
KINDS = (KIND,)
EXC_CLASS = None
DEPTH = 2
RUN_KW = {"check_leaks": True}


class _Informer:
    @go_func("factory.newInformer", "factory.go:54")
    def __init__(self):
        self.lock = gosim.Mutex("informer.lock")
        self.handlers = []

    @go_func("informer.forEachHandler", "factory.go:28")
    def deliver_pod_delete(self, pod):
        """A: dispatch an event to every registered handler under the informer lock."""
        with self.lock:  # :29
            for h in list(self.handlers):  # :38
                h(pod)  # :39

    @go_func("WatchFactory.removeHandler", "factory.go:234")
    def remove_handler(self, h):
        with self.lock:  # :240
            self.handlers.remove(h)  # :245


class _Policy:
    @not_ported("namespacePolicy's fields (policy_common.go); upstream fills the struct inline in addNetworkPolicyOld")
    def __init__(self, informer):
        self.lock = gosim.Mutex("np.lock")
        self.informer = informer
        self.pods = {"p1"}
        self.deleted = False

    @go_func("Controller.handleLocalPodSelectorDelFuncOld", "policy_old.go:571")
    def on_pod_delete(self, pod):
        with self.lock:  # :584
            if not self.deleted:  # :587
                self.pods.discard(pod)  # :594


@not_ported("builds the scenario's main for one variant")
def _scenario(delete_policy):
    @not_ported("scenario driver: a pod delete and its policy's delete arrive together")
    def main():
        inf = _Informer()
        np = _Policy(inf)
        inf.handlers.append(np.on_pod_delete)
        wg = gosim.WaitGroup()
        wg.add(2)
        gosim.go(lambda: (inf.deliver_pod_delete("p1"), wg.done()), name="A.podInformer")
        gosim.go(lambda: (delete_policy(np, wg), wg.done()), name="B.deleteNetworkPolicy")
        wg.wait()

    return main


@go_func("Controller.deleteNetworkPolicyOld", "policy_old.go:954")
def _delete_buggy(np, wg):
    with np.lock:  # :968
        np.deleted = True  # :972
        np.informer.remove_handler(np.on_pod_delete)  # :992 shutdownHandlers: needs informer.lock while holding np.lock


@go_func("Controller.deleteNetworkPolicyOld", "policy_old.go:955")
def _delete_fixed(np, wg):
    # lines of policy_old.go at the fix commit
    with np.lock:  # :969
        np.deleted = True  # :973 tombstone: A skips the handler from now on
        wg.add(1)
        # :993 shutdownHandlers -> removeHandler's goroutine (factory.go:270 at the fix)
        gosim.go(lambda: (np.informer.remove_handler(np.on_pod_delete), wg.done()), name="removeHandler")  # :993


buggy = _scenario(_delete_buggy)
fixed = _scenario(_delete_fixed)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
