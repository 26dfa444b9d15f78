// Package hc20 is the Go twin of fuzzfarm/examples/hc20_processor_listener_start.py (HC-20,
// kubernetes/kubernetes issue #136049, fix PR #136509, client-go commit 889b95a7): the shared
// informer's sharedProcessor deadlocks when distribute sends to a listener whose pop has not
// started while a resync's shouldResync waits for the write lock and run then asks for the read
// lock.
//
// processor.go holds what the fix leaves alone (client-go tools/cache/shared_informer.go and
// reflector.go at the fix's parent, ada74e06; wait.Group from the apimachinery that client-go
// pinned there): the listener's add/pop/run, shouldResync and the reflector's resync loop.
// processor_buggy.go and processor_fixed.go hold the constructor, distribute and run before and
// at the fix. Logging, metrics, crash handling, the sync tracker and the clock interface are
// left out; the ring buffer is a slice.
package hc20

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// sharedProcessorRunDelay is the test hook the fix added (shared_informer.go:898-900
// @889b95a7, read at the start of run's first closure): nil in TestScenario; set by
// TestScenarioForcedDelay, as upstream's TestListenerResyncPeriodsDelayed does. Both variants
// carry it so the forced test can show the buggy run.
var sharedProcessorRunDelay atomic.Pointer[time.Duration]

// Group is apimachinery's wait.Group.
type Group struct {
	wg sync.WaitGroup
}

// upstream: kubernetes/apimachinery pkg/util/wait/wait.go:47-49 @f88bdbffa2604addb08ff2abd998e28bc45547e9
func (g *Group) Wait() {
	g.wg.Wait()
}

// upstream: kubernetes/apimachinery pkg/util/wait/wait.go:68-74 @f88bdbffa2604addb08ff2abd998e28bc45547e9
func (g *Group) Start(f func()) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		f()
	}()
}

// ResourceEventHandler is the part of cache.ResourceEventHandler the scenario calls.
type ResourceEventHandler interface {
	OnAdd(obj interface{}, isInInitialList bool)
}

type addNotification struct {
	newObj          interface{}
	isInInitialList bool
}

// processorListener relays notifications from a sharedProcessor to one handler: two
// goroutines (pop, run), two unbuffered channels, and a buffer between them.
type processorListener struct {
	nextCh chan interface{}
	addCh  chan interface{}

	handler ResourceEventHandler

	pendingNotifications ringGrowing

	requestedResyncPeriod time.Duration
	resyncPeriod          time.Duration
	nextResync            time.Time
	resyncLock            sync.Mutex
}

// ringGrowing stands for client-go's buffer.RingGrowing (unbounded FIFO).
type ringGrowing struct{ items []interface{} }

func (r *ringGrowing) ReadOne() (interface{}, bool) {
	if len(r.items) == 0 {
		return nil, false
	}
	v := r.items[0]
	r.items = r.items[1:]
	return v, true
}

func (r *ringGrowing) WriteOne(v interface{}) { r.items = append(r.items, v) }

// upstream: kubernetes/client-go tools/cache/shared_informer.go:1002-1017 @ada74e06af13b2ac87aa075a94805a7a03226b58
func newProcessListener(handler ResourceEventHandler, requestedResyncPeriod, resyncPeriod time.Duration, now time.Time) *processorListener {
	ret := &processorListener{
		nextCh:                make(chan interface{}),
		addCh:                 make(chan interface{}),
		handler:               handler,
		requestedResyncPeriod: requestedResyncPeriod,
		resyncPeriod:          resyncPeriod,
	}

	ret.determineNextResync(now)

	return ret
}

// upstream: kubernetes/client-go tools/cache/shared_informer.go:1019-1024 @ada74e06af13b2ac87aa075a94805a7a03226b58
func (p *processorListener) add(notification interface{}) {
	p.addCh <- notification
}

// upstream: kubernetes/client-go tools/cache/shared_informer.go:1026-1054 @ada74e06af13b2ac87aa075a94805a7a03226b58
func (p *processorListener) pop() {
	defer close(p.nextCh) // Tell .run() to stop

	var nextCh chan<- interface{}
	var notification interface{}
	for {
		select {
		case nextCh <- notification:
			// Notification dispatched
			var ok bool
			notification, ok = p.pendingNotifications.ReadOne()
			if !ok { // Nothing to pop
				nextCh = nil // Disable this select case
			}
		case notificationToAdd, ok := <-p.addCh:
			if !ok {
				return
			}
			if notification == nil { // No notification to pop (and pendingNotifications is empty)
				// Optimize the case - skip adding to pendingNotifications
				notification = notificationToAdd
				nextCh = p.nextCh
			} else { // There is already a notification waiting to be dispatched
				p.pendingNotifications.WriteOne(notificationToAdd)
			}
		}
	}
}

// upstream: kubernetes/client-go tools/cache/shared_informer.go:1056-1090 @ada74e06af13b2ac87aa075a94805a7a03226b58
func (p *processorListener) run() {
	for next := range p.nextCh {
		switch notification := next.(type) {
		case addNotification:
			p.handler.OnAdd(notification.newObj, notification.isInInitialList)
		}
	}
}

// upstream: kubernetes/client-go tools/cache/shared_informer.go:1094-1103 @ada74e06af13b2ac87aa075a94805a7a03226b58
func (p *processorListener) shouldResync(now time.Time) bool {
	p.resyncLock.Lock()
	defer p.resyncLock.Unlock()

	if p.resyncPeriod == 0 {
		return false
	}

	return now.After(p.nextResync) || now.Equal(p.nextResync)
}

// upstream: kubernetes/client-go tools/cache/shared_informer.go:1105-1110 @ada74e06af13b2ac87aa075a94805a7a03226b58
func (p *processorListener) determineNextResync(now time.Time) {
	p.resyncLock.Lock()
	defer p.resyncLock.Unlock()

	p.nextResync = now.Add(p.resyncPeriod)
}

// upstream: kubernetes/client-go tools/cache/shared_informer.go:825-841 @ada74e06af13b2ac87aa075a94805a7a03226b58
func (p *sharedProcessor) addListener(listener *processorListener) *processorListener {
	p.listenersLock.Lock()
	defer p.listenersLock.Unlock()

	if p.listeners == nil {
		p.listeners = make(map[*processorListener]bool)
	}

	p.listeners[listener] = true

	if p.listenersStarted {
		p.wg.Start(listener.run)
		p.wg.Start(listener.pop)
	}

	return listener
}

// upstream: kubernetes/client-go tools/cache/shared_informer.go:915-933 @ada74e06af13b2ac87aa075a94805a7a03226b58
func (p *sharedProcessor) shouldResync() bool {
	p.listenersLock.Lock()
	defer p.listenersLock.Unlock()

	resyncNeeded := false
	now := time.Now()
	for listener := range p.listeners {
		// need to loop through all the listeners to see if they need to resync so we can prepare any
		// listeners that are going to be resyncing.
		shouldResync := listener.shouldResync(now)
		p.listeners[listener] = shouldResync

		if shouldResync {
			resyncNeeded = true
			listener.determineNextResync(now)
		}
	}
	return resyncNeeded
}

// Store is the part of cache.Store the resync loop calls.
type Store interface {
	Resync() error
}

// Reflector is the part of cache.Reflector the resync loop uses; ShouldResync is the
// informer's processor.shouldResync (shared_informer.go's Config.ShouldResync).
type Reflector struct {
	store        Store
	resyncPeriod time.Duration
	ShouldResync func() bool
}

// upstream: kubernetes/client-go tools/cache/reflector.go:383-394 @ada74e06af13b2ac87aa075a94805a7a03226b58
func (r *Reflector) resyncChan() (<-chan time.Time, func() bool) {
	if r.resyncPeriod == 0 {
		// nothing will ever be sent down this channel
		return nil, func() bool { return false }
	}
	t := time.NewTimer(r.resyncPeriod)
	return t.C, t.Stop
}

// upstream: kubernetes/client-go tools/cache/reflector.go:452-474 @ada74e06af13b2ac87aa075a94805a7a03226b58
func (r *Reflector) startResync(ctx context.Context, resyncerrc chan error) {
	resyncCh, cleanup := r.resyncChan()
	defer func() {
		cleanup() // Call the last one written into cleanup
	}()
	for {
		select {
		case <-resyncCh:
		case <-ctx.Done():
			return
		}
		if r.ShouldResync == nil || r.ShouldResync() {
			if err := r.store.Resync(); err != nil {
				resyncerrc <- err
				return
			}
		}
		cleanup()
		resyncCh, cleanup = r.resyncChan()
	}
}
