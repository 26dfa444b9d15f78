"""HC-03: lock-order inversion between an informer lock and a per-policy lock (deadlock).

ovn-org/ovn-kubernetes PR #483 "factory: defer handler removal to a goroutine" (related: PRs
#334, #466, #5027). A, the pod-informer event path, holds ``informer.lock`` while it calls
the policy's pod-delete handler, which locks ``np.lock``. B, the NetworkPolicy delete path,
holds ``np.lock`` while it removes the policy's handler, which needs ``informer.lock``. If
each takes its first lock before the other takes its second: AB/BA deadlock.

Fixed (#483): B marks the handler as a tombstone under ``np.lock`` (A skips it) and the real
removal runs in a separate goroutine that takes the informer lock on its own; B never holds
``np`` while waiting for ``informer``.
"""

from __future__ import annotations

from fuzzfarm import gosim

ID = "HC-03"
TITLE = "lock-order inversion informer.lock / np.lock"
SOURCE = "https://github.com/ovn-kubernetes/ovn-kubernetes/pull/483"
KIND = "deadlock"
KINDS = (KIND,)
EXC_CLASS = None
DEPTH = 2
RUN_KW = {"check_leaks": True}


class _Informer:
    def __init__(self):
        self.lock = gosim.Mutex("informer.lock")
        self.handlers = []

    def deliver_pod_delete(self, pod):
        """A: dispatch an event to every registered handler under the informer lock."""
        with self.lock:
            for h in list(self.handlers):
                h(pod)

    def remove_handler(self, h):
        with self.lock:
            self.handlers.remove(h)


class _Policy:
    def __init__(self, informer):
        self.lock = gosim.Mutex("np.lock")
        self.informer = informer
        self.pods = {"p1"}
        self.deleted = False

    def on_pod_delete(self, pod):
        with self.lock:
            if not self.deleted:
                self.pods.discard(pod)


def _scenario(delete_policy):
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


def _delete_buggy(np, wg):
    with np.lock:
        np.deleted = True
        np.informer.remove_handler(np.on_pod_delete)  # needs informer.lock while holding np.lock


def _delete_fixed(np, wg):
    with np.lock:
        np.deleted = True  # tombstone: A skips the handler from now on
        wg.add(1)
        gosim.go(lambda: (np.informer.remove_handler(np.on_pod_delete), wg.done()), name="removeHandler")


buggy = _scenario(_delete_buggy)
fixed = _scenario(_delete_fixed)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
