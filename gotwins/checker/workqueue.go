package checker

import "sync"

// Interface of a workerqueue (clusterloader2 util/workerqueue).
type Interface interface {
	Add(*func())
	Stop()
}

// WorkerQueue is worker group with a task queue.
type WorkerQueue struct {
	queue       *Type
	workerGroup Group
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/workerqueue/workerqueue.go:38-46 @83e45df022ca
func NewWorkerQueue(size int) Interface {
	wq := &WorkerQueue{
		queue: New(),
	}
	for i := 0; i < size; i++ {
		wq.workerGroup.Start(wq.worker)
	}
	return wq
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/workerqueue/workerqueue.go:49-51 @83e45df022ca
func (wq *WorkerQueue) Add(f *func()) {
	wq.queue.Add(f)
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/workerqueue/workerqueue.go:54-57 @83e45df022ca
func (wq *WorkerQueue) Stop() {
	wq.queue.ShutDown()
	wq.workerGroup.Wait()
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/workerqueue/workerqueue.go:59-68 @83e45df022ca
func (wq *WorkerQueue) worker() {
	for {
		f, stop := wq.queue.Get()
		if stop {
			return
		}
		(*f.(*func()))()
		wq.queue.Done(f)
	}
}

// Type is client-go's work queue (util/workqueue, v0.22.15; metrics left out: the default
// factory records nothing and starts no goroutine).
type Type struct {
	queue        []t
	dirty        set
	processing   set
	cond         *sync.Cond
	shuttingDown bool
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

// upstream: kubernetes/client-go util/workqueue/queue.go:36-38 @v0.22.15
func New() *Type {
	return &Type{
		dirty:      set{},
		processing: set{},
		cond:       sync.NewCond(&sync.Mutex{}),
	}
}

// upstream: kubernetes/client-go util/workqueue/queue.go:114-133 @v0.22.15
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

// upstream: kubernetes/client-go util/workqueue/queue.go:138-142 @v0.22.15
func (q *Type) Len() int {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()
	return len(q.queue)
}

// upstream: kubernetes/client-go util/workqueue/queue.go:147-169 @v0.22.15
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

// upstream: kubernetes/client-go util/workqueue/queue.go:174-185 @v0.22.15
func (q *Type) Done(item interface{}) {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()
	q.processing.delete(item)
	if q.dirty.has(item) {
		q.queue = append(q.queue, item)
		q.cond.Signal()
	}
}

// upstream: kubernetes/client-go util/workqueue/queue.go:190-195 @v0.22.15
func (q *Type) ShutDown() {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()
	q.shuttingDown = true
	q.cond.Broadcast()
}
