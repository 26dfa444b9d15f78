package hc15

import (
	"sync"
	"testing"
	"time"
)

// TestScenario is the Python case's main: the worker and the informer run, one
// ClusterDeployment is queued, and once things have settled (5 s there, 5 ms here) the test
// checks "at most one provision per ClusterDeployment".
func TestScenario(t *testing.T) {
	stop := make(chan struct{})
	r := &ReconcileClusterDeployment{
		api:          &apiServer{watch: make(chan ClusterProvision, 16), stop: stop},
		cache:        &informerCache{children: map[string][]ClusterProvision{}},
		queue:        make(chan string, 16),
		stop:         stop,
		expectations: &Expectations{},
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go r.worker(&wg)
	go r.informer(&wg, onAdd(r))
	r.queue <- "cd-1"
	time.Sleep(5 * time.Millisecond)
	close(stop)
	wg.Wait()
	if n := len(r.api.children); n > 1 {
		t.Fatalf("%d provisions for one ClusterDeployment (at most one allowed)", n)
	}
}
