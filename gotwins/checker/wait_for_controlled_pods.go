package checker

import (
	"context"
	"fmt"
	"log"
	"strings"
	"sync"
	"time"
)

const (
	waitForControlledPodsRunningName = "WaitForControlledPodsRunning"
	waitForControlledPodsWorkers     = 1
	defaultSyncTimeout               = 60 * unit
	defaultOperationTimeout          = 10 * 60 * unit
	checkControlledPodsInterval      = 5 * unit
	informerSyncTimeout              = 60 * unit
	defaultWaitForPodsInterval       = 5 * unit
)

var podIndexerFactory = &sharedPodIndexerFactory{}

type sharedPodIndexerFactory struct {
	podsIndexer *ControlledPodsIndexer
	err         error
	once        sync.Once
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/common/wait_for_controlled_pods.go:80-85 @83e45df022ca
func (s *sharedPodIndexerFactory) PodsIndexer(c *FakeCluster) (*ControlledPodsIndexer, error) {
	s.once.Do(func() {
		s.podsIndexer, s.err = &ControlledPodsIndexer{cluster: c}, nil
	})
	return s.podsIndexer, s.err
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/common/wait_for_controlled_pods.go:104-111 @83e45df022ca
func createWaitForControlledPodsRunningMeasurement() *waitForControlledPodsRunningMeasurement {
	return &waitForControlledPodsRunningMeasurement{
		queue:      NewWorkerQueue(waitForControlledPodsWorkers),
		objectKeys: map[string]struct{}{},
		checkerMap: NewMap(),
	}
}

type waitForControlledPodsRunningMeasurement struct {
	kind                  string
	operationTimeout      time.Duration
	countErrorMargin      int
	stopCh                chan struct{}
	isRunning             bool
	queue                 Interface
	handlingGroup         Group
	lock                  sync.Mutex
	objectKeys            map[string]struct{} // sets.String
	opResourceVersion     uint64
	checkerMap            Map
	cluster               *FakeCluster // clusterFramework
	checkIfPodsAreUpdated bool
	podsIndexer           *ControlledPodsIndexer
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/common/wait_for_controlled_pods.go:235-245 @83e45df022ca
func (w *waitForControlledPodsRunningMeasurement) Dispose() {
	if !w.isRunning {
		return
	}
	w.isRunning = false
	close(w.stopCh)
	w.queue.Stop()
	w.lock.Lock()
	defer w.lock.Unlock()
	w.checkerMap.Dispose()
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/common/wait_for_controlled_pods.go:248-250 @83e45df022ca
func (*waitForControlledPodsRunningMeasurement) String() string {
	return waitForControlledPodsRunningName
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/common/wait_for_controlled_pods.go:252-285 @83e45df022ca
func (w *waitForControlledPodsRunningMeasurement) start() error {
	if w.isRunning {
		log.Printf("%v: wait for controlled pods measurement already running", w)
		return nil
	}
	w.isRunning = true
	w.stopCh = make(chan struct{})
	podsIndexer, err := podIndexerFactory.PodsIndexer(w.cluster)
	if err != nil {
		return err
	}
	w.podsIndexer = podsIndexer

	i := NewDynamicInformer(
		w.cluster,
		func(odlObj, newObj interface{}) {
			f := func() {
				w.handleObject(odlObj, newObj)
			}
			w.queue.Add(&f)
		},
	)
	return StartAndSync(i, w.stopCh, informerSyncTimeout)
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/common/wait_for_controlled_pods.go:287-386 @83e45df022ca
func (w *waitForControlledPodsRunningMeasurement) gather(syncTimeout time.Duration) error {
	if !w.isRunning {
		return fmt.Errorf("metric %s has not been started", w)
	}
	objectKeys, maxResourceVersion, err := w.getObjectKeysAndMaxVersion()
	if err != nil {
		return err
	}
	cond := func() (bool, error) {
		w.lock.Lock()
		defer w.lock.Unlock()
		return w.opResourceVersion >= maxResourceVersion && equalSets(objectKeys, w.objectKeys), nil
	}
	if err := Poll(checkControlledPodsInterval, syncTimeout, cond); err != nil {
		return fmt.Errorf("timed out while waiting for controlled pods: %v", err)
	}

	w.handlingGroup.Wait()
	w.lock.Lock()
	defer w.lock.Unlock()
	var numberRunning, numberDeleted, numberTimeout, numberFailed int
	var failedErrList []string
	timedOutObjects := []string{}
	var maxDuration time.Duration
	var failedPods []string
	for _, checker := range w.checkerMap {
		objChecker := checker.(*objectChecker)
		status, err := objChecker.getStatus()
		if objChecker.duration > maxDuration {
			maxDuration = objChecker.duration
		}
		switch status {
		case running:
			numberRunning++
		case deleted:
			numberDeleted++
		case timeout:
			timedOutObjects = append(timedOutObjects, objChecker.key)
			numberTimeout++
			failedPods = append(failedPods, objChecker.failedPods...)
		case deleteTimeout:
			timedOutObjects = append(timedOutObjects, objChecker.key)
			numberTimeout++
			failedPods = append(failedPods, objChecker.failedPods...)
		case failed:
			numberFailed++
			failedPods = append(failedPods, objChecker.failedPods...)
			if err != nil {
				failedErrList = append(failedErrList, err.Error())
			}
		default:
			return fmt.Errorf("got unknown status for %v: status=%v, err=%v", objChecker.key, status, err)
		}
	}
	_ = failedPods
	if numberTimeout > 0 {
		return fmt.Errorf("%d objects timed out: %ss: %s", numberTimeout, w.kind, strings.Join(timedOutObjects, ", "))
	}
	if len(objectKeys) != numberRunning {
		return fmt.Errorf("incorrect objects number: %d/%d %ss are running with all pods", numberRunning, len(objectKeys), w.kind)
	}
	if numberFailed > 0 {
		return fmt.Errorf("failed objects statuses: %v", strings.Join(failedErrList, "; "))
	}
	return nil
}

func equalSets(a, b map[string]struct{}) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/common/wait_for_controlled_pods.go:410-456 @83e45df022ca
func (w *waitForControlledPodsRunningMeasurement) handleObject(oldObj, newObj interface{}) {
	var oldRuntimeObj *RuntimeObject
	var newRuntimeObj *RuntimeObject
	var ok bool
	oldRuntimeObj, ok = oldObj.(*RuntimeObject)
	if oldObj != nil && !ok {
		log.Printf("%s: uncastable old object: %v", w, oldObj)
		return
	}
	newRuntimeObj, ok = newObj.(*RuntimeObject)
	if newObj != nil && !ok {
		log.Printf("%s: uncastable new object: %v", w, newObj)
		return
	}

	// Acquire the lock before defining defered function to ensure it
	// will be called under the same lock.
	w.lock.Lock()
	defer w.lock.Unlock()

	defer func() {
		if err := w.updateCacheLocked(oldRuntimeObj, newRuntimeObj); err != nil {
			log.Printf("%s: error when updating cache: %v", w, err)
		}
	}()

	isEqual, err := IsEqualRuntimeObjectsSpec(asObject(oldRuntimeObj), asObject(newRuntimeObj))
	if err != nil {
		log.Printf("%s: comparing specs error: %v", w, err)
		return
	}
	if isEqual {
		// Skip updates without changes in the spec.
		return
	}

	if !w.isRunning {
		return
	}

	if err := w.deleteObjectLocked(oldRuntimeObj); err != nil {
		log.Printf("%s: delete checker error: %v", w, err)
	}
	if err := w.handleObjectLocked(oldRuntimeObj, newRuntimeObj); err != nil {
		log.Printf("%s: create checker error: %v", w, err)
	}
}

// asObject is a nil interface for a nil object, as a nil runtime.Object is upstream.
func asObject(o *RuntimeObject) interface{} {
	if o == nil {
		return nil
	}
	return o
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/common/wait_for_controlled_pods.go:479-495 @83e45df022ca
func (w *waitForControlledPodsRunningMeasurement) handleObjectLocked(oldObj, newObj *RuntimeObject) error {
	isObjDeleted := newObj == nil
	handledObj := newObj
	if isObjDeleted {
		handledObj = oldObj
	}
	key, err := DeletionHandlingMetaNamespaceKeyFunc(handledObj)
	if err != nil {
		return fmt.Errorf("meta key creation error: %v", err)
	}
	checker, err := w.waitForRuntimeObject(handledObj, isObjDeleted, w.operationTimeout)
	if err != nil {
		return fmt.Errorf("waiting for %v error: %v", key, err)
	}
	w.checkerMap.Add(key, checker)
	return nil
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/common/wait_for_controlled_pods.go:497-507 @83e45df022ca
func (w *waitForControlledPodsRunningMeasurement) deleteObjectLocked(obj *RuntimeObject) error {
	if obj == nil {
		return nil
	}
	key, err := DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return fmt.Errorf("meta key creation error: %v", err)
	}
	w.checkerMap.DeleteAndStop(key)
	return nil
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/common/wait_for_controlled_pods.go:509-539 @83e45df022ca
func (w *waitForControlledPodsRunningMeasurement) updateCacheLocked(oldObj, newObj *RuntimeObject) error {
	if oldObj != nil {
		key, _ := DeletionHandlingMetaNamespaceKeyFunc(oldObj)
		delete(w.objectKeys, key)
		if err := w.updateOpResourceVersionLocked(oldObj); err != nil {
			return err
		}
	}
	if newObj != nil {
		key, _ := DeletionHandlingMetaNamespaceKeyFunc(newObj)
		w.objectKeys[key] = struct{}{}
		if err := w.updateOpResourceVersionLocked(newObj); err != nil {
			return err
		}
	}
	return nil
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/common/wait_for_controlled_pods.go:541-550 @83e45df022ca
func (w *waitForControlledPodsRunningMeasurement) updateOpResourceVersionLocked(runtimeObj *RuntimeObject) error {
	version, err := GetResourceVersionFromRuntimeObject(runtimeObj)
	if err != nil {
		return fmt.Errorf("retriving resource version error: %v", err)
	}
	if version > w.opResourceVersion {
		w.opResourceVersion = version
	}
	return nil
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/common/wait_for_controlled_pods.go:554-586 @83e45df022ca
func (w *waitForControlledPodsRunningMeasurement) getObjectKeysAndMaxVersion() (map[string]struct{}, uint64, error) {
	objectKeys := map[string]struct{}{}
	var maxResourceVersion uint64
	for _, obj := range w.cluster.listObjects() {
		key, _ := DeletionHandlingMetaNamespaceKeyFunc(obj)
		objectKeys[key] = struct{}{}
		if obj.ResourceVersion > maxResourceVersion {
			maxResourceVersion = obj.ResourceVersion
		}
	}
	return objectKeys, maxResourceVersion, nil
}

type objectStatus int

const (
	unknown       objectStatus = iota // WaitForPods hasn't finished yet. Result isn't determined yet.
	running                           // WaitForPods finished and scale up/down to scale other than 0 succeeded.
	deleted                           // WaitForPods finished and scale down to 0 succeeded.
	failed                            // WaitForPods finished, but failed. o.err must be set.
	timeout                           // WaitForPods has been interrupted due to timeout and target scale was other than 0.
	deleteTimeout                     // WaitForPods has been interrupted due to timeout and target scale was 0.
)

type objectChecker struct {
	lock       sync.Mutex
	status     objectStatus
	err        error
	key        string
	cancel     context.CancelFunc
	duration   time.Duration
	failedPods []string
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/common/wait_for_controlled_pods.go:697-702 @83e45df022ca
func newObjectChecker(key string) *objectChecker {
	return &objectChecker{
		status: unknown,
		key:    key,
	}
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/common/wait_for_controlled_pods.go:704-708 @83e45df022ca
func (o *objectChecker) SetCancel(cancel context.CancelFunc) {
	o.lock.Lock()
	defer o.lock.Unlock()
	o.cancel = cancel
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/common/wait_for_controlled_pods.go:710-714 @83e45df022ca
func (o *objectChecker) Stop() {
	o.lock.Lock()
	defer o.lock.Unlock()
	o.cancel()
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/common/wait_for_controlled_pods.go:716-720 @83e45df022ca
func (o *objectChecker) getStatus() (objectStatus, error) {
	o.lock.Lock()
	defer o.lock.Unlock()
	return o.status, o.err
}
