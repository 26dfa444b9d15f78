package checker

import (
	"context"
	"fmt"
	"time"
)

// Stubs of what the checker reads from objects and pods (no goroutines, locks or maps of
// interest): client-go's key functions, clusterloader2's runtimeobjects, pod store and
// indexer, pod status counting, and WaitForPods' loop (kept: a checker goroutine blocks in it).

// upstream: kubernetes/client-go tools/cache/store.go:104-116 @v0.22.15
func MetaNamespaceKeyFunc(obj interface{}) (string, error) {
	o, ok := obj.(*RuntimeObject)
	if !ok {
		return "", fmt.Errorf("object has no meta: %v", obj)
	}
	if len(o.Namespace) > 0 {
		return o.Namespace + "/" + o.Name, nil
	}
	return o.Name, nil
}

// upstream: kubernetes/client-go tools/cache/controller.go:294-299 @v0.22.15
func DeletionHandlingMetaNamespaceKeyFunc(obj interface{}) (string, error) {
	if d, ok := obj.(DeletedFinalStateUnknown); ok {
		return d.Key, nil
	}
	return MetaNamespaceKeyFunc(obj)
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/runtimeobjects/runtimeobjects.go:69-79 @83e45df022ca
func GetResourceVersionFromRuntimeObject(obj interface{}) (uint64, error) {
	o, ok := obj.(*RuntimeObject)
	if !ok {
		return 0, fmt.Errorf("accessor error: %v", obj)
	}
	return o.ResourceVersion, nil
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/runtimeobjects/runtimeobjects.go:83-90 @83e45df022ca
func GetIsPodUpdatedPredicateFromRuntimeObject(obj interface{}) (func(*pod) error, error) {
	return func(*pod) error { return nil }, nil
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/runtimeobjects/runtimeobjects.go:114-136 @83e45df022ca
func GetSpecFromRuntimeObject(obj interface{}) (interface{}, error) {
	if obj == nil {
		return nil, nil
	}
	return obj.(*RuntimeObject).Spec, nil
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/runtimeobjects/runtimeobjects.go:273-284 @83e45df022ca
func IsEqualRuntimeObjectsSpec(runtimeObj1, runtimeObj2 interface{}) (bool, error) {
	runtimeObj1Spec, err := GetSpecFromRuntimeObject(runtimeObj1)
	if err != nil {
		return false, err
	}
	runtimeObj2Spec, err := GetSpecFromRuntimeObject(runtimeObj2)
	if err != nil {
		return false, err
	}
	return runtimeObj1Spec == runtimeObj2Spec, nil
}

// ReplicasWatcher is the desired pod count of an object.
type ReplicasWatcher interface {
	Replicas() int
	Start(stopCh <-chan struct{}) error
}

// ConstReplicas is a ReplicasWatcher with a fixed count.
type ConstReplicas struct {
	ReplicasCount int
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/runtimeobjects/replicaswatcher.go:63-65 @83e45df022ca
func (c *ConstReplicas) Replicas() int {
	return c.ReplicasCount
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/runtimeobjects/replicaswatcher.go:67-69 @83e45df022ca
func (c *ConstReplicas) Start(_ <-chan struct{}) error {
	return nil
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/runtimeobjects/runtimeobjects.go:151-188 @83e45df022ca
func GetReplicasFromRuntimeObject(c *FakeCluster, obj interface{}) (ReplicasWatcher, error) {
	if obj == nil {
		return &ConstReplicas{0}, nil
	}
	return &ConstReplicas{obj.(*RuntimeObject).Spec.Replicas}, nil
}

// ControlledPodsIndexer finds the pods an object controls (by owner UID).
type ControlledPodsIndexer struct {
	cluster *FakeCluster
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/controlled_pods_indexer.go:206-243 @83e45df022ca
func (p *ControlledPodsIndexer) PodsControlledBy(obj interface{}) ([]*pod, error) {
	var out []*pod
	for _, pd := range p.cluster.podsOf(obj.(*RuntimeObject).UID) {
		pd := pd
		out = append(out, &pd)
	}
	return out, nil
}

// OwnerReferenceBasedPodStore lists the pods of one owner.
type OwnerReferenceBasedPodStore struct {
	controlledPodsIndexer *ControlledPodsIndexer
	owner                 interface{}
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/object_store.go:130-141 @83e45df022ca
func NewOwnerReferenceBasedPodStore(controlledPodsIndexer *ControlledPodsIndexer, owner interface{}) (*OwnerReferenceBasedPodStore, error) {
	return &OwnerReferenceBasedPodStore{controlledPodsIndexer: controlledPodsIndexer, owner: owner}, nil
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/object_store.go:144-148 @83e45df022ca
func (s *OwnerReferenceBasedPodStore) List() ([]*pod, error) {
	return s.controlledPodsIndexer.PodsControlledBy(s.owner)
}

// PodsStartupStatus counts pods by state.
type PodsStartupStatus struct {
	Running, RunningUpdated, Inactive int
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/pods.go:69-72 @83e45df022ca
func (s *PodsStartupStatus) String() string {
	return fmt.Sprintf("Pods: %d running, %d inactive", s.Running, s.Inactive)
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/pods.go:106-155 @83e45df022ca
func ComputePodsStartupStatus(pods []*pod, expected int, isPodUpdated func(*pod) error) PodsStartupStatus {
	var s PodsStartupStatus
	for _, p := range pods {
		if p.running {
			s.Running++
			if isPodUpdated == nil || isPodUpdated(p) == nil {
				s.RunningUpdated++
			}
		}
	}
	return s
}

// WaitForPodOptions is WaitForPods' options.
type WaitForPodOptions struct {
	DesiredPodCount     func() int
	CountErrorMargin    int
	CallerName          string
	WaitForPodsInterval time.Duration
	IsPodUpdated        func(*pod) error
}

// WaitForPods lists the pods every interval until the desired count runs, or ctx is done
// (upstream's loop and select; its logging and scaling diagnostics left out).
//
// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/wait_for_pods.go:59-133 @83e45df022ca
func WaitForPods(ctx context.Context, ps *OwnerReferenceBasedPodStore, options *WaitForPodOptions) ([]string, error) {
	oldPods, err := ps.List()
	if err != nil {
		return nil, fmt.Errorf("failed to list pods: %w", err)
	}
	for {
		select {
		case <-ctx.Done():
			var notReady []string
			for _, p := range oldPods {
				if !p.running {
					notReady = append(notReady, p.name)
				}
			}
			return notReady, fmt.Errorf("timeout while waiting for %d pods to be running", options.DesiredPodCount())
		case <-time.After(options.WaitForPodsInterval):
			desiredPodCount := options.DesiredPodCount()
			pods, err := ps.List()
			if err != nil {
				return nil, fmt.Errorf("failed to list pods: %w", err)
			}
			podsStatus := ComputePodsStartupStatus(pods, desiredPodCount, options.IsPodUpdated)
			if len(pods) == (podsStatus.Running+podsStatus.Inactive) && podsStatus.Running == podsStatus.RunningUpdated && podsStatus.RunningUpdated == desiredPodCount {
				return nil, nil
			}
			oldPods = pods
		}
	}
}
