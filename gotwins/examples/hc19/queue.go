// Package hc19 is the Go twin of fuzzfarm/examples/hc19_workqueue_drain_shutdown.py (HC-19,
// kubernetes/kubernetes PR #119554, client-go commit e9b0103a): ShutDownWithDrain loses a
// ShutDown that lands between its drain check and its wait.
//
// queue.go holds what the fix leaves alone (client-go util/workqueue/queue.go at the fix's
// parent, metrics and clock left out: the queue has no metrics, so no update goroutine);
// queue_buggy.go and queue_fixed.go hold the shutdown functions before and at the fix. The
// scenario is upstream's TestForceQueueShutdownUsingShutDown.
package hc19

import "sync"

// Type is a work queue.
type Type struct {
	queue      []t
	dirty      set
	processing set

	cond *sync.Cond

	shuttingDown bool
	drain        bool
}

type empty struct{}
type t interface{}
type set map[t]empty

func (s set) has(item t) bool {
	_, exists := s[item]
	return exists
}

func (s set) insert(item t) {
	s[item] = empty{}
}

func (s set) delete(item t) {
	delete(s, item)
}

func (s set) len() int {
	return len(s)
}

// upstream: kubernetes/client-go util/workqueue/queue.go:93-110 @856e847bb7cb462237859051673760ae341edfbc
func newQueue() *Type {
	t := &Type{
		dirty:      set{},
		processing: set{},
		cond:       sync.NewCond(&sync.Mutex{}),
	}
	return t
}

// upstream: kubernetes/client-go util/workqueue/queue.go:163-182 @856e847bb7cb462237859051673760ae341edfbc
func (q *Type) Add(item interface{}) {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()
	if q.shuttingDown {
		return
	}
	if q.dirty.has(item) {
		return
	}

	q.dirty.insert(item)
	if q.processing.has(item) {
		return
	}

	q.queue = append(q.queue, item)
	q.cond.Signal()
}

// upstream: kubernetes/client-go util/workqueue/queue.go:196-218 @856e847bb7cb462237859051673760ae341edfbc
func (q *Type) Get() (item interface{}, shutdown bool) {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()
	for len(q.queue) == 0 && !q.shuttingDown {
		q.cond.Wait()
	}
	if len(q.queue) == 0 {
		// We must be shutting down.
		return nil, true
	}

	item = q.queue[0]
	q.queue[0] = nil
	q.queue = q.queue[1:]

	q.processing.insert(item)
	q.dirty.delete(item)

	return item, false
}

// upstream: kubernetes/client-go util/workqueue/queue.go:223-236 @856e847bb7cb462237859051673760ae341edfbc
func (q *Type) Done(item interface{}) {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()

	q.processing.delete(item)
	if q.dirty.has(item) {
		q.queue = append(q.queue, item)
		q.cond.Signal()
	} else if q.processing.len() == 0 {
		q.cond.Signal()
	}
}
