//go:build !fixed

package hc09

import "sync"

// upstream: etcd-io/etcd etcdserver/server.go:587-722 @546873f27e4b834b0cdbcdae3851e30aaa27b9e4
func (s *EtcdServer) run() {
	// raft's ready handler and the sync ticker (stubbed: the closures upstream builds here)
	var smu sync.RWMutex
	setSyncC := func() {
		smu.Lock()
		smu.Unlock()
	}
	getSyncC := func() {
		smu.RLock()
		smu.RUnlock()
	}
	rh := &raftReadyHandler{
		leadershipUpdate: func() { setSyncC() },
		sendMessage:      func() { getSyncC() },
	}
	_ = rh

	defer func() {
		close(s.stopping)

		// sched.Stop() stubbed

		// wait for gouroutines before closing raft so wal stays open
		s.wg.Wait()

		// raft, lessor, kv, backend and compactor stops stubbed
		close(s.done)
	}()

	for {
		select {
		case <-s.stop:
			return
		}
	}
}

// upstream: etcd-io/etcd etcdserver/server.go:1611-1617 @546873f27e4b834b0cdbcdae3851e30aaa27b9e4
func (s *EtcdServer) goAttach(f func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f()
	}()
}
