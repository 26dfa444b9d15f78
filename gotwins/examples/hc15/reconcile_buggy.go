//go:build !fixed

package hc15

// Expectations does not exist before the fix.
type Expectations struct{}

func onAdd(r *ReconcileClusterDeployment) func(ClusterProvision) { return func(ClusterProvision) {} }

// The reconcile pass, reduced to the provision decision (no provision yet: start one).
// upstream: openshift/hive pkg/controller/clusterdeployment/clusterdeployment_controller.go:279-459 @31f6f6f2c1d2299b8a40e89d24307d81dd1ec9e7
func (r *ReconcileClusterDeployment) reconcile(parent string) {
	r.startNewProvision(parent)
}

// DNS, service account, PVC and pod spec stubbed; the status update after it requeues the parent.
// upstream: openshift/hive pkg/controller/clusterdeployment/clusterdeployment_controller.go:461-583 @31f6f6f2c1d2299b8a40e89d24307d81dd1ec9e7
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
	if err := r.api.Create(provision); err != nil {
		return err
	}

	r.requeue(parent) // the parent's status update requeues it
	return nil
}
