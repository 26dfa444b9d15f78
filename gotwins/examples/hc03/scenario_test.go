package hc03

import (
	"sync"
	"testing"
)

// TestScenario is the Python case's main: a policy with its pod handler registered; a pod
// delete (A, the informer's delete path) and the policy's delete (B) arrive together; the test
// waits for both. Before the fix, A holding the informer lock and wanting np's lock while B
// holds np's lock and wants the informer lock hangs both (the test's timeout).
func TestScenario(t *testing.T) {
	wf := &WatchFactory{pods: newInformer()}
	oc := &Controller{watchFactory: wf, namespacePolicies: map[string]map[string]*namespacePolicy{}}
	np := &namespacePolicy{name: "np", namespace: "ns", localPods: map[string]bool{"ns_p1": true}}
	oc.namespacePolicies["ns"] = map[string]*namespacePolicy{"np": np}
	oc.handleLocalPodSelectorOld(np)
	podDelete := wf.newFederatedHandler(wf.pods)

	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); podDelete(&Pod{Namespace: "ns", Name: "p1", NodeName: "node1"}) }() // A
	go func() { defer wg.Done(); oc.deleteNetworkPolicyOld("ns", "np") }()                           // B
	wg.Wait()
}
