//go:build fixed

package hc09

import "sync"

// upstream: etcd-io/etcd etcdserver/server.go:589-726 @614adb0230505f93193ffcbc739da3f54407ded4
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
		s.wgMu.Lock() // block concurrent waitgroup adds in goAttach while stopping
		close(s.stopping)
		s.wgMu.Unlock()

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

// upstream: etcd-io/etcd etcdserver/server.go:1615-1631 @614adb0230505f93193ffcbc739da3f54407ded4
func (s *EtcdServer) goAttach(f func()) {
	s.wgMu.RLock() // this blocks with ongoing close(s.stopping)
	defer s.wgMu.RUnlock()
	select {
	case <-s.stopping:
		return
	default:
	}

	// now safe to add since waitgroup wait has not started yet
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f()
	}()
}
