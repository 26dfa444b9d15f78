// Package workqueue is a minimal stand-in for k8s.io/client-go/util/workqueue, written for
// fuzzfarm's tests (Go here has no module proxy): the basic queue with upstream's behaviour and
// locking, citing util/workqueue/queue.go of client-go at
// 32ce75a7d6bc6960fd048d3d1e3b34185418d8c8. Upstream's Type is Typed[any] with pluggable
// storage and metrics (no-ops by default: no goroutine); this one is the default FIFO only.
package workqueue

import "sync"

// Interface: queue.go:28 (TypedInterface[any], queue.go:30).
type Interface interface {
	Add(item interface{})
	Len() int
	Get() (item interface{}, shutdown bool)
	Done(item interface{})
	ShutDown()
	ShutDownWithDrain()
	ShuttingDown() bool
}

// Type: queue.go:186 (Typed[t], queue.go:188).
type Type struct {
	queue        []interface{}
	dirty        map[interface{}]bool
	processing   map[interface{}]bool
	cond         *sync.Cond
	shuttingDown bool
	drain        bool
}

// New: queue.go:104, through newQueue (queue.go:163).
func New() *Type {
	return &Type{dirty: map[interface{}]bool{}, processing: map[interface{}]bool{}, cond: sync.NewCond(&sync.Mutex{})}
}

// NewNamed: queue.go:133 (the name only labels metrics).
func NewNamed(name string) *Type { return New() }

// Add: queue.go:227.
func (q *Type) Add(item interface{}) {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()
	if q.shuttingDown || q.dirty[item] {
		return
	}
	q.dirty[item] = true
	if q.processing[item] {
		return
	}
	q.queue = append(q.queue, item)
	q.cond.Signal()
}

// Len: queue.go:256.
func (q *Type) Len() int {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()
	return len(q.queue)
}

// Get: queue.go:265.
func (q *Type) Get() (interface{}, bool) {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()
	for len(q.queue) == 0 && !q.shuttingDown {
		q.cond.Wait()
	}
	if len(q.queue) == 0 {
		return nil, true
	}
	item := q.queue[0]
	q.queue = q.queue[1:]
	q.processing[item] = true
	delete(q.dirty, item)
	return item, false
}

// Done: queue.go:289.
func (q *Type) Done(item interface{}) {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()
	delete(q.processing, item)
	if q.dirty[item] {
		q.queue = append(q.queue, item)
		q.cond.Signal()
	} else if len(q.processing) == 0 {
		q.cond.Signal()
	}
}

// ShutDown: queue.go:307.
func (q *Type) ShutDown() {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()
	q.drain = false
	q.shuttingDown = true
	q.cond.Broadcast()
}

// ShutDownWithDrain: queue.go:327.
func (q *Type) ShutDownWithDrain() {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()
	q.drain = true
	q.shuttingDown = true
	q.cond.Broadcast()
	for len(q.processing) != 0 && q.drain {
		q.cond.Wait()
	}
}

// ShuttingDown: queue.go:344.
func (q *Type) ShuttingDown() bool {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()
	return q.shuttingDown
}
