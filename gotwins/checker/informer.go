package checker

import (
	"fmt"
	"time"
)

// ResourceEventHandlerFuncs is client-go's handler triple.
type ResourceEventHandlerFuncs struct {
	AddFunc    func(obj interface{})
	UpdateFunc func(oldObj, newObj interface{})
	DeleteFunc func(obj interface{})
}

type addNotification struct{ newObj interface{} }
type updateNotification struct{ oldObj, newObj interface{} }
type deleteNotification struct{ oldObj interface{} }

// sharedIndexInformer is a stub of client-go's over the scripted cluster: the initial LIST as
// Adds, synced, then the watch events at their times, all through one processorListener (its
// unbounded buffer and its own goroutine, so a handler call may come after StartAndSync
// returned, as upstream).
type sharedIndexInformer struct {
	cluster  *FakeCluster
	synced   chan struct{}
	listener *processorListener
}

type processorListener struct {
	addCh   chan interface{}
	nextCh  chan interface{}
	handler ResourceEventHandlerFuncs
}

func (s *sharedIndexInformer) AddEventHandler(h ResourceEventHandlerFuncs) {
	s.listener = &processorListener{addCh: make(chan interface{}), nextCh: make(chan interface{}), handler: h}
}

// upstream: kubernetes/client-go tools/cache/shared_informer.go:368-411 @v0.22.15
func (s *sharedIndexInformer) Run(stopCh <-chan struct{}) {
	s.cluster.startClock()
	processorStopCh := make(chan struct{})
	var wg Group
	defer wg.Wait()              // Wait for Processor to stop
	defer close(processorStopCh) // Tell Processor to stop
	wg.Start(func() { s.listener.pop() })
	wg.Start(func() { s.listener.run() })
	go func() { <-processorStopCh; close(s.listener.addCh) }()
	// controller.Run: LIST, synced, WATCH
	for _, obj := range s.cluster.Initial {
		if !s.listener.add(addNotification{obj}, stopCh) {
			return
		}
	}
	close(s.synced)
	for _, ev := range s.cluster.Events {
		if wait := ev.At - s.cluster.now(); wait > 0 {
			select {
			case <-stopCh:
				return
			case <-time.After(wait):
			}
		}
		var n interface{}
		switch ev.Type {
		case Added:
			n = addNotification{ev.Obj}
		case Modified:
			n = updateNotification{ev.Old, ev.Obj}
		case Deleted:
			n = deleteNotification{ev.Obj}
		}
		if !s.listener.add(n, stopCh) {
			return
		}
	}
	<-stopCh
}

func (p *processorListener) add(n interface{}, stopCh <-chan struct{}) bool {
	select {
	case p.addCh <- n:
		return true
	case <-stopCh:
		return false
	}
}

// pop buffers notifications without bound, as client-go's processorListener.pop.
func (p *processorListener) pop() {
	defer close(p.nextCh)
	var pending []interface{}
	for {
		var out chan interface{}
		var next interface{}
		if len(pending) > 0 {
			out, next = p.nextCh, pending[0]
		}
		select {
		case out <- next:
			pending = pending[1:]
		case n, ok := <-p.addCh:
			if !ok {
				return
			}
			pending = append(pending, n)
		}
	}
}

// upstream: kubernetes/client-go tools/cache/shared_informer.go:765-787 @v0.22.15
func (p *processorListener) run() {
	for next := range p.nextCh {
		switch notification := next.(type) {
		case updateNotification:
			p.handler.UpdateFunc(notification.oldObj, notification.newObj)
		case addNotification:
			p.handler.AddFunc(notification.newObj)
		case deleteNotification:
			p.handler.DeleteFunc(notification.oldObj)
		}
	}
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/informer/informer.go:43-59 @83e45df022ca
func NewDynamicInformer(c *FakeCluster, handleObj func(interface{}, interface{})) *sharedIndexInformer {
	informer := &sharedIndexInformer{cluster: c, synced: make(chan struct{})}
	addEventHandler(informer, handleObj)
	return informer
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/informer/informer.go:61-79 @83e45df022ca
func addEventHandler(i *sharedIndexInformer,
	handleObj func(interface{}, interface{}),
) {
	i.AddEventHandler(ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) {
			handleObj(nil, obj)
		},
		UpdateFunc: func(oldObj, newObj interface{}) {
			handleObj(oldObj, newObj)
		},
		DeleteFunc: func(obj interface{}) {
			if tombstone, ok := obj.(DeletedFinalStateUnknown); ok {
				handleObj(tombstone.Obj, nil)
			} else {
				handleObj(obj, nil)
			}
		},
	})
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/informer/informer.go:82-93 @83e45df022ca
func StartAndSync(i *sharedIndexInformer, stopCh <-chan struct{}, timeout time.Duration) error {
	go i.Run(stopCh)
	timeoutCh := make(chan struct{})
	timeoutTimer := time.AfterFunc(timeout, func() {
		close(timeoutCh)
	})
	defer timeoutTimer.Stop()
	if !waitForCacheSync(timeoutCh, i.synced) {
		return fmt.Errorf("timed out waiting for caches to sync")
	}
	return nil
}

// waitForCacheSync stands for cache.WaitForCacheSync, which polls HasSynced every 100 ms:
// waiting on the synced channel orders the same way without the polling.
func waitForCacheSync(stopCh <-chan struct{}, synced <-chan struct{}) bool {
	select {
	case <-synced:
		return true
	case <-stopCh:
		return false
	}
}
