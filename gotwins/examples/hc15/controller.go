// Package hc15 is the Go twin of fuzzfarm/examples/hc15_cache_check_then_act.py (HC-15,
// openshift/hive PR #518 merged as 339584af): the ClusterDeployment reconciler lists its
// provisions from the informer cache and creates one when it sees none; a pass that runs before
// the cache has the new provision creates a second.
//
// This file holds what the Python case models without citing a source (and the twin likewise):
// the API server (creates, with a watch event per create), the informer (delivers watch events
// into the cache), controller-runtime's reconcile worker loop and the queue. The reconciler's
// functions are in reconcile_buggy.go / reconcile_fixed.go, reduced to the provision decision.
package hc15

import (
	"fmt"
	"runtime"
	"sync"
)

// ClusterProvision is the child: its parent's name.
type ClusterProvision struct{ Name, Parent string }

type apiServer struct {
	mu       sync.Mutex
	children []ClusterProvision
	watch    chan ClusterProvision
	stop     chan struct{}
}

// Create POSTs a provision; the watch delivers it to the informer later.
func (a *apiServer) Create(p ClusterProvision) error {
	runtime.Gosched() // the round trip to the API server
	a.mu.Lock()
	a.children = append(a.children, p)
	a.mu.Unlock()
	select {
	case a.watch <- p:
	case <-a.stop:
	}
	return nil
}

type informerCache struct {
	mu       sync.RWMutex
	children map[string][]ClusterProvision
}

// ReconcileClusterDeployment keeps the API client, the cache, the queue and (fixed) the expectations.
type ReconcileClusterDeployment struct {
	api          *apiServer
	cache        *informerCache
	queue        chan string
	stop         chan struct{}
	expectations *Expectations
}

func (r *ReconcileClusterDeployment) requeue(parent string) {
	select {
	case r.queue <- parent:
	case <-r.stop:
	}
}

// upstream: openshift/hive pkg/controller/clusterdeployment/clusterdeployment_controller.go:1588-1604 @31f6f6f2c1d2299b8a40e89d24307d81dd1ec9e7
func (r *ReconcileClusterDeployment) existingProvisions(parent string) ([]ClusterProvision, error) {
	r.cache.mu.RLock()
	defer r.cache.mu.RUnlock()
	return append([]ClusterProvision(nil), r.cache.children[parent]...), nil
}

// worker is controller-runtime's reconcile worker loop (modelled).
func (r *ReconcileClusterDeployment) worker(wg *sync.WaitGroup) {
	defer wg.Done()
	for {
		select {
		case <-r.stop:
			return
		case parent := <-r.queue:
			r.reconcile(parent)
		}
	}
}

// informer is client-go's informer delivering the API server's watch events into the cache
// (modelled); onAdd is the event handler (fixed: it observes the creation and requeues).
func (r *ReconcileClusterDeployment) informer(wg *sync.WaitGroup, onAdd func(ClusterProvision)) {
	defer wg.Done()
	for {
		select {
		case <-r.stop:
			return
		case p := <-r.api.watch:
			runtime.Gosched() // watch latency
			r.cache.mu.Lock()
			r.cache.children[p.Parent] = append(r.cache.children[p.Parent], p)
			r.cache.mu.Unlock()
			onAdd(p)
		}
	}
}

func provisionName(parent string, n int) string { return fmt.Sprintf("%s-provision-%d", parent, n) }
