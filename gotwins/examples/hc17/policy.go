package hc17

import (
	"fmt"
	"sync"
	"time"
)

// ovnNbctl stands for one ovn-nbctl call: an exec and a round trip to the northbound database.
func ovnNbctl() { time.Sleep(100 * time.Microsecond) }

// Pod is the deleted pod.
type Pod struct{ Namespace, Name, NodeName string }

// NetworkPolicy is the policy (one ingress and one egress rule, each with an address set).
type NetworkPolicy struct {
	Namespace, Name string
	Ingress, Egress int
}

type gressPolicy struct{}

type namespacePolicy struct {
	sync.Mutex
	name            string
	namespace       string
	ingressPolicies []*gressPolicy
	egressPolicies  []*gressPolicy
	stop            chan bool
	stopWg          *sync.WaitGroup
	localPods       map[string]bool
	deleted         bool
}

// Controller keeps the watch factory and the policies.
type Controller struct {
	watchFactory      *WatchFactory
	namespacePolicies map[string]map[string]*namespacePolicy
}

// Caches and clients other than the watch factory and the policies left out.
// upstream: ovn-org/ovn-kubernetes go-controller/pkg/ovn/ovn.go:66-82 @5d836b6b08c42a87118515e6eb2f08184c8c57a9
func NewOvnController(wf *WatchFactory) *Controller {
	return &Controller{
		watchFactory:      wf,
		namespacePolicies: make(map[string]map[string]*namespacePolicy),
	}
}

// upstream: ovn-org/ovn-kubernetes go-controller/pkg/ovn/policy.go:795-829 @5d836b6b08c42a87118515e6eb2f08184c8c57a9
func (oc *Controller) handleLocalPodSelectorDelFunc(policy *NetworkPolicy, np *namespacePolicy, obj interface{}) {
	pod := obj.(*Pod)

	logicalSwitch := pod.NodeName
	if logicalSwitch == "" {
		return
	}

	logicalPort := fmt.Sprintf("%s_%s", pod.Namespace, pod.Name)

	np.Lock()
	defer np.Unlock()

	if np.deleted {
		return
	}

	if !np.localPods[logicalPort] {
		return
	}
	delete(np.localPods, logicalPort)
	ovnNbctl() // localPodDelDefaultDeny

	for range np.ingressPolicies {
		ovnNbctl() // localPodAddOrDelACL
	}
	for range np.egressPolicies {
		ovnNbctl() // localPodAddOrDelACL
	}
}

// upstream: ovn-org/ovn-kubernetes go-controller/pkg/ovn/policy.go:831-857 @5d836b6b08c42a87118515e6eb2f08184c8c57a9
func (oc *Controller) handleLocalPodSelector(policy *NetworkPolicy, np *namespacePolicy) {
	np.stopWg.Add(1)
	id, err := oc.watchFactory.AddFilteredPodHandler(policy.Namespace,
		ResourceEventHandlerFuncs{
			DeleteFunc: func(obj interface{}) {
				oc.handleLocalPodSelectorDelFunc(policy, np, obj)
			},
		})
	if err != nil {
		return
	}

	<-np.stop
	_ = oc.watchFactory.RemovePodHandler(id)
	np.stopWg.Done()
}

// Namespace wait, ports, peers and address-set creation stubbed (one ovn-nbctl call per rule).
// upstream: ovn-org/ovn-kubernetes go-controller/pkg/ovn/policy.go:1031-1161 @5d836b6b08c42a87118515e6eb2f08184c8c57a9
func (oc *Controller) AddNetworkPolicy(policy *NetworkPolicy) {
	if oc.namespacePolicies[policy.Namespace] != nil &&
		oc.namespacePolicies[policy.Namespace][policy.Name] != nil {
		return
	}

	np := &namespacePolicy{}
	np.name = policy.Name
	np.namespace = policy.Namespace
	np.ingressPolicies = make([]*gressPolicy, 0)
	np.egressPolicies = make([]*gressPolicy, 0)
	np.stop = make(chan bool, 1)
	np.stopWg = &sync.WaitGroup{}
	np.localPods = make(map[string]bool)

	for i := 0; i < policy.Ingress; i++ {
		ovnNbctl() // createAddressSet
		np.ingressPolicies = append(np.ingressPolicies, &gressPolicy{})
	}
	for i := 0; i < policy.Egress; i++ {
		ovnNbctl() // createAddressSet
		np.egressPolicies = append(np.egressPolicies, &gressPolicy{})
	}
	np.localPods[policy.Namespace+"_pod1"] = true // the pod the policy selects (added by its AddFunc upstream)

	if oc.namespacePolicies[policy.Namespace] == nil {
		oc.namespacePolicies[policy.Namespace] = map[string]*namespacePolicy{}
	}
	oc.namespacePolicies[policy.Namespace][policy.Name] = np

	go oc.handleLocalPodSelector(policy, np)
}
