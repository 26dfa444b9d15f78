//go:build fixed

package checker

import (
	"context"
	"fmt"
	"log"
	"time"
)

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/common/wait_for_controlled_pods.go:588-672 @19927c1a477e
func (w *waitForControlledPodsRunningMeasurement) waitForRuntimeObject(obj *RuntimeObject, isDeleted bool, operationTimeout time.Duration) (*objectChecker, error) {
	ctx := context.TODO()

	runtimeObjectReplicas, err := GetReplicasFromRuntimeObject(w.cluster, obj)
	if err != nil {
		return nil, err
	}
	var isPodUpdated func(*pod) error
	if w.checkIfPodsAreUpdated {
		isPodUpdated, err = GetIsPodUpdatedPredicateFromRuntimeObject(obj)
		if err != nil {
			return nil, err
		}
	}
	if isDeleted {
		runtimeObjectReplicas = &ConstReplicas{0}
	}
	key, err := DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return nil, fmt.Errorf("meta key creation error: %v", err)
	}

	podStore, err := NewOwnerReferenceBasedPodStore(w.podsIndexer, obj)
	if err != nil {
		return nil, fmt.Errorf("failed to create pod store: %w", err)
	}

	o := newObjectChecker(key)
	o.lock.Lock()
	defer o.lock.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	o.cancel = cancel
	// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/common/wait_for_controlled_pods.go:620-670 @19927c1a477e
	w.handlingGroup.Start(func() {
		defer cancel()
		if operationTimeout != time.Duration(0) {
			ctx, cancel = context.WithTimeout(ctx, operationTimeout)
			defer cancel()
		}
		if err := runtimeObjectReplicas.Start(ctx.Done()); err != nil {
			log.Printf("%s: error while starting runtimeObjectReplicas: %v", key, err)
			o.err = fmt.Errorf("failed to start runtimeObjectReplicas: %v", err)
			return
		}
		options := &WaitForPodOptions{
			DesiredPodCount:     runtimeObjectReplicas.Replicas,
			CountErrorMargin:    w.countErrorMargin,
			CallerName:          w.String(),
			WaitForPodsInterval: defaultWaitForPodsInterval,
			IsPodUpdated:        isPodUpdated,
		}

		// This function sets the status (and error message) for the object checker.
		// The handling of bad statuses and errors is done by gather() function of the measurement.
		start := time.Now()
		failedPods, err := WaitForPods(ctx, podStore, options)
		o.lock.Lock()
		defer o.lock.Unlock()
		o.duration = time.Since(start)

		if err != nil {
			o.status = failed
			o.err = fmt.Errorf("%s: %v", key, err)
			o.failedPods = failedPods

			hasTimedOut := ctx.Err() != nil
			if hasTimedOut {
				if isDeleted {
					o.status = deleteTimeout
				} else {
					o.status = timeout
				}
			}
			return
		}
		if isDeleted {
			o.status = deleted
			return
		}

		o.status = running
	})
	return o, nil
}
