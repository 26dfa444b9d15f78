//go:build fixed

package hc15

import "sync"

// Expectations is controllerutils.Expectations reduced to creations per key (no TTL).
type Expectations struct {
	mu   sync.Mutex
	adds map[string]int64
}

// upstream: openshift/hive pkg/controller/utils/expectations.go:106-132 @339584af68296920bee3ab8e4c1a03f99816e34f
func (r *Expectations) SatisfiedExpectations(controllerKey string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.adds[controllerKey] <= 0
}

// upstream: openshift/hive pkg/controller/utils/expectations.go:143-145 @339584af68296920bee3ab8e4c1a03f99816e34f
func (r *Expectations) ExpectCreations(controllerKey string, adds int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.adds == nil {
		r.adds = map[string]int64{}
	}
	r.adds[controllerKey] = int64(adds)
}

// upstream: openshift/hive pkg/controller/utils/expectations.go:174-176 @339584af68296920bee3ab8e4c1a03f99816e34f
func (r *Expectations) CreationObserved(controllerKey string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.adds[controllerKey]--
}

// The provision event handler's Create: observe the creation, then enqueue the owner.
// upstream: openshift/hive pkg/controller/clusterdeployment/provisionexpectations.go:36-40 @339584af68296920bee3ab8e4c1a03f99816e34f
func onAdd(r *ReconcileClusterDeployment) func(ClusterProvision) {
	return func(p ClusterProvision) {
		r.trackClusterProvisionAdd(p)
		r.requeue(p.Parent)
	}
}

// upstream: openshift/hive pkg/controller/clusterdeployment/provisionexpectations.go:64-81 @339584af68296920bee3ab8e4c1a03f99816e34f
func (r *ReconcileClusterDeployment) trackClusterProvisionAdd(p ClusterProvision) {
	r.expectations.CreationObserved(p.Parent)
}

// The reconcile pass, reduced to the expectations check and the provision decision.
// upstream: openshift/hive pkg/controller/clusterdeployment/clusterdeployment_controller.go:290-475 @339584af68296920bee3ab8e4c1a03f99816e34f
func (r *ReconcileClusterDeployment) reconcile(parent string) {
	if !r.expectations.SatisfiedExpectations(parent) {
		return
	}
	r.startNewProvision(parent)
}

// DNS, service account, PVC and pod spec stubbed; the status update after it requeues the parent.
// upstream: openshift/hive pkg/controller/clusterdeployment/clusterdeployment_controller.go:477-602 @339584af68296920bee3ab8e4c1a03f99816e34f
func (r *ReconcileClusterDeployment) startNewProvision(parent string) error {
	existingProvisions, err := r.existingProvisions(parent)
	if err != nil {
		return err
	}

	for range existingProvisions {
		return nil // adoptProvision
	}

	r.api.mu.Lock()
	provision := ClusterProvision{Name: provisionName(parent, len(r.api.children)), Parent: parent}
	r.api.mu.Unlock()

	r.expectations.ExpectCreations(parent, 1)
	if err := r.api.Create(provision); err != nil {
		r.expectations.CreationObserved(parent)
		return err
	}

	r.requeue(parent) // the parent's status update requeues it
	return nil
}
