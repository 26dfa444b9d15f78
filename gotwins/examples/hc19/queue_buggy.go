//go:build !fixed

package hc19

// upstream: kubernetes/client-go util/workqueue/queue.go:240-243 @856e847bb7cb462237859051673760ae341edfbc
func (q *Type) ShutDown() {
	q.setDrain(false)
	q.shutdown()
}

// upstream: kubernetes/client-go util/workqueue/queue.go:254-260 @856e847bb7cb462237859051673760ae341edfbc
func (q *Type) ShutDownWithDrain() {
	q.setDrain(true)
	q.shutdown()
	for q.isProcessing() && q.shouldDrain() {
		q.waitForProcessing()
	}
}

// upstream: kubernetes/client-go util/workqueue/queue.go:264-268 @856e847bb7cb462237859051673760ae341edfbc
func (q *Type) isProcessing() bool {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()
	return q.processing.len() != 0
}

// upstream: kubernetes/client-go util/workqueue/queue.go:272-283 @856e847bb7cb462237859051673760ae341edfbc
func (q *Type) waitForProcessing() {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()
	// Ensure that we do not wait on a queue which is already empty.
	if q.processing.len() == 0 {
		return
	}
	q.cond.Wait()
}

// upstream: kubernetes/client-go util/workqueue/queue.go:285-289 @856e847bb7cb462237859051673760ae341edfbc
func (q *Type) setDrain(shouldDrain bool) {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()
	q.drain = shouldDrain
}

// upstream: kubernetes/client-go util/workqueue/queue.go:291-295 @856e847bb7cb462237859051673760ae341edfbc
func (q *Type) shouldDrain() bool {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()
	return q.drain
}

// upstream: kubernetes/client-go util/workqueue/queue.go:297-302 @856e847bb7cb462237859051673760ae341edfbc
func (q *Type) shutdown() {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()
	q.shuttingDown = true
	q.cond.Broadcast()
}
