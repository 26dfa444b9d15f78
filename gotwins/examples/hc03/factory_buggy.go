//go:build !fixed

package hc03

import (
	"fmt"
	"sync"
)

type informer struct {
	sync.Mutex
	handlers map[uint64]ResourceEventHandler
}

// podHandle is what addHandler returns and removeHandler takes: a handler ID before the fix.
type podHandle = uint64

// upstream: ovn-org/ovn-kubernetes go-controller/pkg/factory/factory.go:28-41 @8e944df815606493259849f3e7a3df306a3f2217
func (i *informer) forEachHandler(obj interface{}, f func(id uint64, handler ResourceEventHandler)) {
	i.Lock()
	defer i.Unlock()

	for id, handler := range i.handlers {
		f(id, handler)
	}
}

// upstream: ovn-org/ovn-kubernetes go-controller/pkg/factory/factory.go:54-60 @8e944df815606493259849f3e7a3df306a3f2217
func newInformer() *informer {
	return &informer{handlers: make(map[uint64]ResourceEventHandler)}
}

// The DeleteFunc of the federated handler (its tombstone unwrapping stubbed).
// upstream: ovn-org/ovn-kubernetes go-controller/pkg/factory/factory.go:104-138 @8e944df815606493259849f3e7a3df306a3f2217
func (wf *WatchFactory) newFederatedHandler(inf *informer) func(obj interface{}) {
	return func(obj interface{}) {
		inf.forEachHandler(obj, func(id uint64, handler ResourceEventHandler) {
			handler.OnDelete(obj)
		})
	}
}

// Label-selector filtering and processExisting stubbed.
// upstream: ovn-org/ovn-kubernetes go-controller/pkg/factory/factory.go:170-232 @8e944df815606493259849f3e7a3df306a3f2217
func (wf *WatchFactory) addHandler(funcs ResourceEventHandler) (podHandle, error) {
	inf := wf.pods
	wf.handlerCounter++
	handlerID := wf.handlerCounter

	inf.Lock()
	defer inf.Unlock()

	inf.handlers[handlerID] = funcs
	return handlerID, nil
}

// upstream: ovn-org/ovn-kubernetes go-controller/pkg/factory/factory.go:234-248 @8e944df815606493259849f3e7a3df306a3f2217
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

// upstream: ovn-org/ovn-kubernetes go-controller/pkg/factory/factory.go:261-263 @8e944df815606493259849f3e7a3df306a3f2217
func (wf *WatchFactory) RemovePodHandler(handlerID uint64) error {
	return wf.removeHandler(handlerID)
}
