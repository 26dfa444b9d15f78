//go:build fixed

package hc20

import (
	"context"
	"sync"
	"time"
)

// sharedProcessor: listenersLock guards listeners and listenersStarted; the fix adds
// listenersRCond, a Cond on the read side of listenersLock.
type sharedProcessor struct {
	listenersStarted bool
	listenersLock    sync.RWMutex
	listenersRCond   *sync.Cond // Caller of Wait must hold a read lock on listenersLock.
	// Map from listeners to whether or not they are currently syncing
	listeners map[*processorListener]bool
	wg        Group
}

// sharedIndexInformer keeps the fields the scenario uses.
type sharedIndexInformer struct {
	processor         *sharedProcessor
	resyncCheckPeriod time.Duration
}

// upstream: kubernetes/client-go tools/cache/shared_informer.go:303-321 @889b95a7693513157c9867acf98a77d1f25e0b02
func NewSharedIndexInformerWithOptions(resyncPeriod time.Duration) *sharedIndexInformer {
	processor := &sharedProcessor{}
	processor.listenersRCond = sync.NewCond(processor.listenersLock.RLocker())

	return &sharedIndexInformer{
		processor:         processor,
		resyncCheckPeriod: resyncPeriod,
	}
}

// upstream: kubernetes/client-go tools/cache/shared_informer.go:872-896 @889b95a7693513157c9867acf98a77d1f25e0b02
func (p *sharedProcessor) distribute(obj interface{}, sync bool) {
	p.listenersLock.RLock()
	defer p.listenersLock.RUnlock()

	// Before we start blocking on writes to the listeners' channels,
	// ensure that they all have been started. If the processor stops,
	// p.listeners gets cleared, in which case we also continue here
	// and return without doing anything.
	for !p.listenersStarted && len(p.listeners) > 0 {
		p.listenersRCond.Wait()
	}

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

// upstream: kubernetes/client-go tools/cache/shared_informer.go:902-937 @889b95a7693513157c9867acf98a77d1f25e0b02
func (p *sharedProcessor) run(ctx context.Context) {
	func() {
		if delay := sharedProcessorRunDelay.Load(); delay != nil {
			time.Sleep(*delay)
		}
		// Changing listenersStarted needs a write lock.
		p.listenersLock.Lock()
		defer p.listenersLock.Unlock()
		for listener := range p.listeners {
			p.wg.Start(listener.run)
			p.wg.Start(listener.pop)
		}
		p.listenersStarted = true
		p.listenersRCond.Signal()
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

	// Wake up sharedProcessor.distribute.
	p.listenersRCond.Signal()

	p.wg.Wait() // Wait for all .pop() and .run() to stop
}
