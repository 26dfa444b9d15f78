//go:build !fixed

package hc20

import (
	"context"
	"sync"
	"time"
)

// sharedProcessor: listenersLock guards listeners and listenersStarted.
type sharedProcessor struct {
	listenersStarted bool
	listenersLock    sync.RWMutex
	// Map from listeners to whether or not they are currently syncing
	listeners map[*processorListener]bool
	wg        Group
}

// sharedIndexInformer keeps the fields the scenario uses.
type sharedIndexInformer struct {
	processor         *sharedProcessor
	resyncCheckPeriod time.Duration
}

// upstream: kubernetes/client-go tools/cache/shared_informer.go:302-317 @ada74e06af13b2ac87aa075a94805a7a03226b58
func NewSharedIndexInformerWithOptions(resyncPeriod time.Duration) *sharedIndexInformer {
	return &sharedIndexInformer{
		processor:         &sharedProcessor{},
		resyncCheckPeriod: resyncPeriod,
	}
}

// upstream: kubernetes/client-go tools/cache/shared_informer.go:867-883 @ada74e06af13b2ac87aa075a94805a7a03226b58
func (p *sharedProcessor) distribute(obj interface{}, sync bool) {
	p.listenersLock.RLock()
	defer p.listenersLock.RUnlock()

	for listener, isSyncing := range p.listeners {
		switch {
		case !sync:
			// non-sync messages are delivered to every listener
			listener.add(obj)
		case isSyncing:
			// sync messages are delivered to every syncing listener
			listener.add(obj)
		default:
			// skipping a sync obj for a non-syncing listener
		}
	}
}

// upstream: kubernetes/client-go tools/cache/shared_informer.go:885-911 @ada74e06af13b2ac87aa075a94805a7a03226b58
func (p *sharedProcessor) run(ctx context.Context) {
	func() {
		if delay := sharedProcessorRunDelay.Load(); delay != nil {
			time.Sleep(*delay)
		}
		p.listenersLock.RLock()
		defer p.listenersLock.RUnlock()
		for listener := range p.listeners {
			p.wg.Start(listener.run)
			p.wg.Start(listener.pop)
		}
		p.listenersStarted = true
	}()
	<-ctx.Done()

	p.listenersLock.Lock()
	defer p.listenersLock.Unlock()
	for listener := range p.listeners {
		close(listener.addCh) // Tell .pop() to stop. .pop() will tell .run() to stop
	}

	// Wipe out list of listeners since they are now closed
	// (processorListener cannot be re-used)
	p.listeners = nil

	// Reset to false since no listeners are running
	p.listenersStarted = false

	p.wg.Wait() // Wait for all .pop() and .run() to stop
}
