// Package hc17 is the Go twin of fuzzfarm/examples/hc17_policy_stop_wait.py (HC-17,
// ovn-org/ovn-kubernetes PR #334, commit 2b50338c): a NetworkPolicy delete holding np's lock
// waits for the policy's watch goroutine, which waits for the pod informer's lock, held by a
// pod delete waiting for np's lock.
//
// factory.go is go-controller/pkg/factory/factory.go at the fix's parent (unchanged by the
// fix); policy.go holds the policy functions the fix leaves alone; policy_buggy.go and
// policy_fixed.go hold deleteNetworkPolicy before and at the fix. Stubbed: label selectors and
// existing items, logging, and every ovn-nbctl call (an exec and a round trip to the OVN
// northbound database: a 100 µs sleep here, where Go runs other goroutines).
package hc17

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// ResourceEventHandlerFuncs is client-go's cache.ResourceEventHandlerFuncs.
type ResourceEventHandlerFuncs struct {
	AddFunc    func(obj interface{})
	UpdateFunc func(oldObj, newObj interface{})
	DeleteFunc func(obj interface{})
}

// OnAdd calls AddFunc if set.
func (r ResourceEventHandlerFuncs) OnAdd(obj interface{}) {
	if r.AddFunc != nil {
		r.AddFunc(obj)
	}
}

// OnUpdate calls UpdateFunc if set.
func (r ResourceEventHandlerFuncs) OnUpdate(oldObj, newObj interface{}) {
	if r.UpdateFunc != nil {
		r.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc if set.
func (r ResourceEventHandlerFuncs) OnDelete(obj interface{}) {
	if r.DeleteFunc != nil {
		r.DeleteFunc(obj)
	}
}

type informer struct {
	sync.Mutex
	handlers map[uint64]ResourceEventHandlerFuncs
}

// WatchFactory keeps the pod informer.
type WatchFactory struct {
	handlerCounter uint64
	pods           *informer
}

// upstream: ovn-org/ovn-kubernetes go-controller/pkg/factory/factory.go:28-41 @5d836b6b08c42a87118515e6eb2f08184c8c57a9
func (i *informer) forEachHandler(obj interface{}, f func(id uint64, handler ResourceEventHandlerFuncs)) {
	i.Lock()
	defer i.Unlock()

	for id, handler := range i.handlers {
		f(id, handler)
	}
}

// upstream: ovn-org/ovn-kubernetes go-controller/pkg/factory/factory.go:54-60 @5d836b6b08c42a87118515e6eb2f08184c8c57a9
func newInformer() *informer {
	return &informer{handlers: make(map[uint64]ResourceEventHandlerFuncs)}
}

// DeleteFunc's tombstone unwrapping stubbed.
// upstream: ovn-org/ovn-kubernetes go-controller/pkg/factory/factory.go:104-138 @5d836b6b08c42a87118515e6eb2f08184c8c57a9
func (wf *WatchFactory) newFederatedHandler(inf *informer) ResourceEventHandlerFuncs {
	return ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) {
			inf.forEachHandler(obj, func(id uint64, handler ResourceEventHandlerFuncs) {
				handler.OnAdd(obj)
			})
		},
		UpdateFunc: func(oldObj, newObj interface{}) {
			inf.forEachHandler(newObj, func(id uint64, handler ResourceEventHandlerFuncs) {
				handler.OnUpdate(oldObj, newObj)
			})
		},
		DeleteFunc: func(obj interface{}) {
			inf.forEachHandler(obj, func(id uint64, handler ResourceEventHandlerFuncs) {
				handler.OnDelete(obj)
			})
		},
	}
}

// Filters and existing items stubbed.
// upstream: ovn-org/ovn-kubernetes go-controller/pkg/factory/factory.go:170-232 @5d836b6b08c42a87118515e6eb2f08184c8c57a9
func (wf *WatchFactory) addHandler(funcs ResourceEventHandlerFuncs) (uint64, error) {
	inf := wf.pods
	handlerID := atomic.AddUint64(&wf.handlerCounter, 1)

	inf.Lock()
	defer inf.Unlock()

	inf.handlers[handlerID] = funcs
	return handlerID, nil
}

// upstream: ovn-org/ovn-kubernetes go-controller/pkg/factory/factory.go:234-248 @5d836b6b08c42a87118515e6eb2f08184c8c57a9
func (wf *WatchFactory) removeHandler(handlerID uint64) error {
	inf := wf.pods

	inf.Lock()
	defer inf.Unlock()
	if _, ok := inf.handlers[handlerID]; !ok {
		return fmt.Errorf("tried to remove unknown event handler %d", handlerID)
	}
	delete(inf.handlers, handlerID)
	return nil
}

// upstream: ovn-org/ovn-kubernetes go-controller/pkg/factory/factory.go:256-258 @5d836b6b08c42a87118515e6eb2f08184c8c57a9
func (wf *WatchFactory) AddFilteredPodHandler(namespace string, handlerFuncs ResourceEventHandlerFuncs) (uint64, error) {
	return wf.addHandler(handlerFuncs)
}

// upstream: ovn-org/ovn-kubernetes go-controller/pkg/factory/factory.go:261-263 @5d836b6b08c42a87118515e6eb2f08184c8c57a9
func (wf *WatchFactory) RemovePodHandler(handlerID uint64) error {
	return wf.removeHandler(handlerID)
}
