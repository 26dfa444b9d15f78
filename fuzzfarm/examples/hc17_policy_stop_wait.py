"""HC-17: three-way deadlock of a NetworkPolicy delete, a pod event and the policy's watch goroutine.

ovn-org/ovn-kubernetes PR #334 "remove deadlock in network policy delete and pod watch"
(commit 2b50338c); the two-party form that followed is HC-03 (PR #483). Ported from
``go-controller/pkg/ovn/policy.go`` and ``go-controller/pkg/factory/factory.go`` at the parent
of that commit (the fix changes only ``deleteNetworkPolicy``; its fixed lines are cited from
the commit itself). ``# :N`` comments are lines of the file named in the function's
declaration.

B, ``deleteNetworkPolicy``, holds ``np``'s lock while it deletes the policy's address sets
(calls to the OVN database), closes ``np.stop`` and waits on ``np.stopWg`` for the policy's
watch goroutines. C, one of them (``handleLocalPodSelector``), wakes on ``np.stop`` and removes
its pod handler, which takes the pod informer's lock. A, the pod informer delivering a pod
delete, holds the informer's lock while it calls every registered handler, and the policy's
handler takes ``np``'s lock. Depth 3, all three must hold:

1. B takes ``np`` before A's handler asks for it (else A finishes first);
2. A takes the informer's lock before C does (else C removes the handler and A never calls it);
3. A's dispatch reaches the policy's handler while it is still registered, i.e. after C
   registered it and before C removed it.

Then B waits for C, C waits for A's informer lock, A waits for B's ``np``: ``deadlock``.

Fixed (#334): B releases ``np`` before it closes ``np.stop`` and waits, then takes it again
for the rest of the cleanup; a pod handler that gets ``np`` then sees ``np.deleted`` and returns.

Go lines: ovn-kubernetes@5d836b6b08c42a87118515e6eb2f08184c8c57a9 (buggy) and
ovn-kubernetes@2b50338c9798cee601edbda871730de32f47887d (fixed ``deleteNetworkPolicy``).
"""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import go_func, not_ported

ID = "HC-17"
TITLE = "ovn-kubernetes NetworkPolicy delete / pod event / watch goroutine: three-way deadlock"
SOURCE = "https://github.com/ovn-kubernetes/ovn-kubernetes/pull/334"
KIND = "deadlock"
KINDS = (KIND,)
EXC_CLASS = None
DEPTH = 3
HARD = True  # tests in tests/gosim/test_hard_cases.py, benchmark in benchmarks/hard_cases.py
RUN_KW = {"check_leaks": True}

# the scenario's policy: one ingress and one egress rule, each with an address set in OVN
INGRESS_RULES = 1
EGRESS_RULES = 1


@not_ported("one ovn-nbctl call: network I/O, where Go runs other goroutines")
def _ovn_nbctl():
    """One ``ovn-nbctl`` call (an exec and a round trip to the OVN northbound database): network
    I/O, where Go's scheduler runs other goroutines (docs/RUNTIME.md, I/O)."""
    gosim.current_runtime().sched("ovn-nbctl")


class _Informer:
    """``factory.informer``: a lock and the handlers registered on one shared informer."""

    @go_func("newInformer", "factory.go:54")
    def __init__(self):
        self.lock = gosim.Mutex("podInformer")
        self.handlers = gosim.Map(name="informer.handlers")
        self.next_id = 0

    @go_func("informer.forEachHandler", "factory.go:28")
    def for_each_handler(self, obj, f):
        self.lock.lock()  # :29
        try:
            for hid, handler in self.handlers.items():  # :38
                f(hid, handler)  # :39
        finally:
            self.lock.unlock()  # :30 defer

    @go_func("WatchFactory.addHandler", "factory.go:170")
    def add_handler(self, funcs):
        self.lock.lock()  # :215
        try:
            self.next_id += 1
            self.handlers[self.next_id] = funcs
            return self.next_id
        finally:
            self.lock.unlock()

    @go_func("WatchFactory.removeHandler", "factory.go:234")
    def remove_handler(self, handler_id):
        self.lock.lock()  # :240
        try:
            _, ok = self.handlers.lookup(handler_id)  # :242
            if ok:
                del self.handlers[handler_id]  # :245
        finally:
            self.lock.unlock()  # :241 defer

    @go_func("WatchFactory.newFederatedHandler.func3", "factory.go:118")
    def on_pod_delete(self, pod):
        self.for_each_handler(pod, lambda hid, h: h["delete"](pod))  # :132


class _NamespacePolicy:
    """``namespacePolicy`` (policy.go:17): an embedded Mutex, the stop channel and its WaitGroup."""

    @go_func("Controller.AddNetworkPolicy", "policy.go:1031")
    def __init__(self):
        """The part of ``AddNetworkPolicy`` that builds ``np`` (:1047-1054)."""
        self.lock = gosim.Mutex("np")
        self.stop = gosim.Chan(1, name="np.stop")  # :1052
        self.stop_wg = gosim.WaitGroup("np.stopWg")  # :1053
        self.local_pods = gosim.Map({"ns_pod1": True}, name="np.localPods")  # :1054
        self.deleted = False


class _Controller:
    @go_func("NewOvnController", "ovn.go:66")
    def __init__(self, informer):
        self.watch_factory = informer

    @go_func("Controller.handleLocalPodSelectorDelFunc", "policy.go:795")
    def handle_local_pod_selector_del_func(self, np, pod):
        logical_port = f"ns_{pod}"
        np.lock.lock()  # :808
        try:
            if np.deleted:  # :811
                return
            _, ok = np.local_pods.lookup(logical_port)  # :815
            if not ok:
                return
            del np.local_pods[logical_port]  # :818
            _ovn_nbctl()  # :819 localPodDelDefaultDeny
        finally:
            np.lock.unlock()  # :809 defer

    @go_func("Controller.handleLocalPodSelector", "policy.go:831")
    def handle_local_pod_selector(self, np):
        # np.stopWg.Add(1) (:834) is done by the caller here, before this goroutine starts, so
        # that the scenario's delete cannot run before the watch exists (the order upstream's
        # addNetworkPolicy -> deleteNetworkPolicy event sequence gives)
        hid = self.watch_factory.add_handler(  # :835
            {"delete": lambda pod: self.handle_local_pod_selector_del_func(np, pod)})
        np.stop.recv()  # :854
        self.watch_factory.remove_handler(hid)  # :855
        np.stop_wg.done()  # :856

    @go_func("Controller.deleteNetworkPolicy", "policy.go:1184")
    def delete_network_policy_buggy(self, np):
        np.lock.lock()  # :1198
        try:
            np.deleted = True  # :1202
            for _ in range(INGRESS_RULES):
                _ovn_nbctl()  # :1210 deleteAddressSet
            for _ in range(EGRESS_RULES):
                _ovn_nbctl()  # :1218 deleteAddressSet
            np.stop.close()  # :1222
            np.stop_wg.wait()  # :1223
            for _port in np.local_pods.keys():  # :1225
                _ovn_nbctl()  # :1228 localPodDelDefaultDeny
            _ovn_nbctl()  # :1233 deleteAclsPolicy
        finally:
            np.lock.unlock()  # :1199 defer

    @go_func("Controller.deleteNetworkPolicy", "policy.go:1184")
    def delete_network_policy_fixed(self, np):
        # fixed lines are those of commit 2b50338c
        np.lock.lock()  # :1198
        np.deleted = True  # :1201
        for _ in range(INGRESS_RULES):
            _ovn_nbctl()  # :1209 deleteAddressSet
        for _ in range(EGRESS_RULES):
            _ovn_nbctl()  # :1217 deleteAddressSet
        np.lock.unlock()  # :1222 give up np so pending pod events can finish
        np.stop.close()  # :1223
        np.stop_wg.wait()  # :1224
        np.lock.lock()  # :1226
        try:
            for _port in np.local_pods.keys():
                _ovn_nbctl()  # localPodDelDefaultDeny
            _ovn_nbctl()  # deleteAclsPolicy
        finally:
            np.lock.unlock()  # :1227 defer


@not_ported("builds the scenario's main for one variant")
def _scenario(fixed: bool):
    @not_ported("scenario driver: a namespace teardown deletes a pod and its policy together")
    def main():
        informer = _Informer()
        oc = _Controller(informer)
        np = _NamespacePolicy()
        # addNetworkPolicy: start the policy's pod watch (:834 Add, then go handleLocalPodSelector)
        np.stop_wg.add(1)
        gosim.go(oc.handle_local_pod_selector, np, name="C.handleLocalPodSelector")
        delete = oc.delete_network_policy_fixed if fixed else oc.delete_network_policy_buggy
        done = gosim.WaitGroup("events")
        done.add(2)
        # the namespace is torn down: the pod and the policy are deleted at about the same time
        gosim.go(lambda: (informer.on_pod_delete("pod1"), done.done()), name="A.podInformer")
        gosim.go(lambda: (delete(np), done.done()), name="B.deleteNetworkPolicy")
        done.wait()

    return main


buggy = _scenario(fixed=False)
fixed = _scenario(fixed=True)
buggy.__doc__ = "The scenario before the upstream fix (fails under some schedule; see KINDS)."
fixed.__doc__ = "The scenario after the upstream fix (never fails)."
