//go:build fixed

package hc03

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Handler represents an event handler; tombstone is set atomically when it is removed.
type Handler struct {
	ResourceEventHandler

	id        uint64
	tombstone uint32
}

const (
	handlerAlive uint32 = 0
	handlerDead  uint32 = 1
)

type informer struct {
	sync.Mutex
	handlers map[uint64]*Handler
}

// podHandle is what addHandler returns and removeHandler takes: the handler itself after the fix.
type podHandle = *Handler

// upstream: ovn-org/ovn-kubernetes go-controller/pkg/factory/factory.go:41-57 @28d92bdbd8f931c1227f40cd5804121d24b87c73
func (i *informer) forEachHandler(obj interface{}, f func(h *Handler)) {
	i.Lock()
	defer i.Unlock()

	for _, handler := range i.handlers {
		// Only run alive handlers
		if !atomic.CompareAndSwapUint32(&handler.tombstone, handlerDead, handlerDead) {
			f(handler)
		}
	}
}

// upstream: ovn-org/ovn-kubernetes go-controller/pkg/factory/factory.go:72-78 @28d92bdbd8f931c1227f40cd5804121d24b87c73
func newInformer() *informer {
	return &informer{handlers: make(map[uint64]*Handler)}
}

// The DeleteFunc of the federated handler (its tombstone unwrapping stubbed).
// upstream: ovn-org/ovn-kubernetes go-controller/pkg/factory/factory.go:122-156 @28d92bdbd8f931c1227f40cd5804121d24b87c73
func (wf *WatchFactory) newFederatedHandler(inf *informer) func(obj interface{}) {
	return func(obj interface{}) {
		inf.forEachHandler(obj, func(h *Handler) {
			h.OnDelete(obj)
		})
	}
}

// Label-selector filtering and processExisting stubbed.
// upstream: ovn-org/ovn-kubernetes go-controller/pkg/factory/factory.go:188-255 @28d92bdbd8f931c1227f40cd5804121d24b87c73
func (wf *WatchFactory) addHandler(funcs ResourceEventHandler) (podHandle, error) {
	inf := wf.pods
	wf.handlerCounter++
	handlerID := wf.handlerCounter

	inf.Lock()
	defer inf.Unlock()

	handler := &Handler{funcs, handlerID, handlerAlive}
	inf.handlers[handlerID] = handler
	return handler, nil
}

// upstream: ovn-org/ovn-kubernetes go-controller/pkg/factory/factory.go:257-283 @28d92bdbd8f931c1227f40cd5804121d24b87c73
func (wf *WatchFactory) removeHandler(handler *Handler) error {
	inf := wf.pods

	if !atomic.CompareAndSwapUint32(&handler.tombstone, handlerAlive, handlerDead) {
		// Already removed
		return fmt.Errorf("tried to remove already removed event handler %d", handler.id)
	}

	go func() {
		inf.Lock()
		defer inf.Unlock()
		if _, ok := inf.handlers[handler.id]; ok {
			// Remove the handler
			delete(inf.handlers, handler.id)
		}
	}()

	return nil
}

// upstream: ovn-org/ovn-kubernetes go-controller/pkg/factory/factory.go:296-298 @28d92bdbd8f931c1227f40cd5804121d24b87c73
func (wf *WatchFactory) RemovePodHandler(handler *Handler) error {
	return wf.removeHandler(handler)
}
