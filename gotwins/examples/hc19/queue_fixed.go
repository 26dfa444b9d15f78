//go:build fixed

package hc19

// upstream: kubernetes/client-go util/workqueue/queue.go:240-247 @e9b0103a41fa3964de05455d5b1e8187afeda05d
func (q *Type) ShutDown() {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()

	q.drain = false
	q.shuttingDown = true
	q.cond.Broadcast()
}

// upstream: kubernetes/client-go util/workqueue/queue.go:258-269 @e9b0103a41fa3964de05455d5b1e8187afeda05d
func (q *Type) ShutDownWithDrain() {
	q.cond.L.Lock()
	defer q.cond.L.Unlock()

	q.drain = true
	q.shuttingDown = true
	q.cond.Broadcast()

	for q.processing.len() != 0 && q.drain {
		q.cond.Wait()
	}
}
