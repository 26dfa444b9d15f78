// Package hc08 is the Go twin of fuzzfarm/examples/hc08_watch_send_closed.py (HC-08,
// etcd-io/etcd issue #8056, fix PR #8069 merged as d5b917da): the watch benchmark closes the
// creation report's results channel while the watch receivers it started still send on it.
//
// The benchmark's functions are upstream's (watch_buggy.go at the fix's first parent, watch_fixed.go
// at the merge); this file holds the stand-ins for what they call: an in-memory etcd (a put
// delivers one event to every watch on the key; a watch's channel closes when its context is
// done, as clientv3's does), pkg/report's results consumer and the progress bar.
package hc08

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Event is one mvccpb.Event; WatchResponse carries events as clientv3's does.
type Event struct{}

// WatchResponse is clientv3.WatchResponse.
type WatchResponse struct{ Events []Event }

// WatchChan is clientv3.WatchChan.
type WatchChan <-chan WatchResponse

type fakeEtcd struct {
	mu      sync.Mutex
	watches map[string][]chan WatchResponse
}

var server = &fakeEtcd{watches: map[string][]chan WatchResponse{}}

// Watcher is one watch stream (clientv3.Watcher).
type Watcher struct{}

// Watch registers a watch on key; its channel closes when ctx is done.
func (Watcher) Watch(ctx context.Context, key string) WatchChan {
	ch := make(chan WatchResponse, 64)
	server.mu.Lock()
	server.watches[key] = append(server.watches[key], ch)
	server.mu.Unlock()
	go func() {
		<-ctx.Done()
		server.mu.Lock()
		defer server.mu.Unlock()
		ws := server.watches[key]
		for i, w := range ws {
			if w == ch {
				server.watches[key] = append(ws[:i:i], ws[i+1:]...)
				close(ch)
				return
			}
		}
	}()
	return ch
}

// Put stores key and delivers one event to each of its watches.
func Put(key string) {
	server.mu.Lock()
	defer server.mu.Unlock()
	for _, w := range server.watches[key] {
		w <- WatchResponse{Events: []Event{{}}}
	}
}

// Result is report.Result.
type Result struct{ Start, End time.Time }

// Report is pkg/report's report: Results() is its channel, Run() consumes it until closed.
type Report struct{ results chan Result }

// NewReportRate is report.NewReportRate.
func NewReportRate(string) *Report { return &Report{results: make(chan Result, 16)} }

// Results is the channel the benchmark sends results on.
func (r *Report) Results() chan Result { return r.results }

// Run consumes results until the channel is closed, then hands back a summary.
func (r *Report) Run() <-chan string {
	rc := make(chan string, 1)
	go func() {
		n := 0
		for range r.results {
			n++
		}
		rc <- "summary"
	}()
	return rc
}

type progressBar struct{ n int64 }

func (b *progressBar) Increment() { atomic.AddInt64(&b.n, 1) }

var bar = &progressBar{}
