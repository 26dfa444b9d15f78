// Package hc03 is the Go twin of fuzzfarm/examples/hc03_lock_order.py (HC-03,
// ovn-org/ovn-kubernetes PR #483, commit 28d92bdb): the pod informer's lock and a
// NetworkPolicy's lock taken in opposite orders.
//
// The buggy and fixed builds differ in factory_*.go only, as upstream's fix did (its changes to
// policy_old.go and policy_common.go are the handler's type: an ID before, *Handler after, here
// the podHandle alias). Stubbed: OVN database calls (address sets, ACLs, default deny), logging,
// the informer's object type checks and label selectors. Lines of the shared files are the
// parent commit's (the fix shifted policy_old.go by one line).
package hc03

import "sync"

// ResourceEventHandler keeps the delete callback of client-go's cache.ResourceEventHandler.
type ResourceEventHandler struct{ DeleteFunc func(obj interface{}) }

// OnDelete calls DeleteFunc.
func (r ResourceEventHandler) OnDelete(obj interface{}) { r.DeleteFunc(obj) }

// WatchFactory keeps the pod informer only.
type WatchFactory struct {
	handlerCounter uint64
	pods           *informer
}

// Pod is the pod the informer deletes.
type Pod struct{ Namespace, Name, NodeName string }

type namespacePolicy struct {
	sync.Mutex
	name          string
	namespace     string
	podHandleList []podHandle
	localPods     map[string]bool
	deleted       bool
}

// Controller keeps the watch factory and the policies by namespace and name.
type Controller struct {
	watchFactory      *WatchFactory
	namespacePolicies map[string]map[string]*namespacePolicy
}

// upstream: ovn-org/ovn-kubernetes go-controller/pkg/ovn/policy_old.go:571-605 @8e944df815606493259849f3e7a3df306a3f2217
func (oc *Controller) handleLocalPodSelectorDelFuncOld(np *namespacePolicy, obj interface{}) {
	pod := obj.(*Pod)

	logicalSwitch := pod.NodeName
	if logicalSwitch == "" {
		return
	}

	// Get the logical port name.
	logicalPort := pod.Namespace + "_" + pod.Name

	np.Lock()
	defer np.Unlock()

	if np.deleted {
		return
	}

	if !np.localPods[logicalPort] {
		return
	}
	delete(np.localPods, logicalPort)
}

// upstream: ovn-org/ovn-kubernetes go-controller/pkg/ovn/policy_old.go:607-631 @8e944df815606493259849f3e7a3df306a3f2217
func (oc *Controller) handleLocalPodSelectorOld(np *namespacePolicy) {
	h, err := oc.watchFactory.addHandler(ResourceEventHandler{
		DeleteFunc: func(obj interface{}) {
			oc.handleLocalPodSelectorDelFuncOld(np, obj)
		},
	})
	if err != nil {
		return
	}

	np.podHandleList = append(np.podHandleList, h)
}

// upstream: ovn-org/ovn-kubernetes go-controller/pkg/ovn/policy_old.go:954-1005 @8e944df815606493259849f3e7a3df306a3f2217
func (oc *Controller) deleteNetworkPolicyOld(namespace, name string) {
	if oc.namespacePolicies[namespace] == nil ||
		oc.namespacePolicies[namespace][name] == nil {
		return
	}
	np := oc.namespacePolicies[namespace][name]

	np.Lock()
	defer np.Unlock()

	// Mark the policy as deleted.
	np.deleted = true

	// (address sets of the ingress and egress rules deleted here: stubbed)

	// We should now stop all the handlers go routines.
	oc.shutdownHandlers(np)

	// (default deny of the local pods removed here: stubbed)
	oc.namespacePolicies[namespace][name] = nil
}

// upstream: ovn-org/ovn-kubernetes go-controller/pkg/ovn/policy_common.go:257-264 @8e944df815606493259849f3e7a3df306a3f2217
func (oc *Controller) shutdownHandlers(np *namespacePolicy) {
	for _, h := range np.podHandleList {
		_ = oc.watchFactory.RemovePodHandler(h)
	}
}
