// Package hc09 is the Go twin of fuzzfarm/examples/hc09_wg_add_during_wait.py (HC-09,
// etcd-io/etcd issue #6534, fix PR #6628 merged as 614adb02): goAttach's WaitGroup.Add races
// the shutdown's Wait.
//
// Kept: goAttach, the deferred shutdown closure of EtcdServer.run (close stopping, Wait) and
// its loop's stop case. Stubbed: raft, the scheduler, lessor, kv and backend, and the loop's
// other cases; the scenario's background goroutine (the apply path) attaches on its own.
package hc09

import "sync"

// EtcdServer keeps the fields goAttach and run's shutdown use.
type EtcdServer struct {
	wgMu     sync.RWMutex // used by the fixed goAttach and shutdown only
	wg       sync.WaitGroup
	stopping chan struct{}
	stop     chan struct{}
	done     chan struct{}
}

type raftReadyHandler struct {
	leadershipUpdate func()
	sendMessage      func()
}

func newServer() *EtcdServer {
	return &EtcdServer{stopping: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
}
