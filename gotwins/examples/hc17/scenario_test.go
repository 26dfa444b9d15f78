package hc17

import (
	"runtime"
	"sync"
	"testing"
)

// TestScenario is the Python case's main: a policy is added (its pod watch goroutine registers
// the pod handler), then a namespace teardown deletes the pod (A) and the policy (B) at about
// the same time. The Python case does the watch's stopWg.Add(1) before starting the goroutine;
// upstream does it inside, so the test waits here until the handler is registered (the policy
// was added long before the teardown), which also places the Add before B's Wait.
func TestScenario(t *testing.T) {
	wf := &WatchFactory{pods: newInformer()}
	oc := NewOvnController(wf)
	policy := &NetworkPolicy{Namespace: "ns", Name: "np", Ingress: 1, Egress: 1}
	oc.AddNetworkPolicy(policy)
	for registered := false; !registered; runtime.Gosched() {
		wf.pods.Lock()
		registered = len(wf.pods.handlers) == 1
		wf.pods.Unlock()
	}
	podDelete := wf.newFederatedHandler(wf.pods).DeleteFunc

	var done sync.WaitGroup
	done.Add(2)
	go func() { defer done.Done(); podDelete(&Pod{Namespace: "ns", Name: "pod1", NodeName: "node1"}) }() // A
	go func() { defer done.Done(); oc.deleteNetworkPolicy(policy) }()                                    // B
	done.Wait()
}
