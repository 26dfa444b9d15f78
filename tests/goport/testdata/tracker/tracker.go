// Package tracker: the race `fuzzfarm new` scaffolds, as Go. Stop calls the CancelFunc that
// Start's goroutine stores; buggy: it is stored only once that goroutine runs, so a Stop
// that comes first calls a nil func.
package tracker

import (
	"context"
	"sync"
	"time"
)

type Tracker struct {
	mu      sync.Mutex
	cancels map[string]context.CancelFunc
}

func NewTracker() *Tracker { return &Tracker{cancels: map[string]context.CancelFunc{}} }

func (t *Tracker) Stop(name string) {
	t.mu.Lock()
	cancel := t.cancels[name]
	delete(t.cancels, name)
	t.mu.Unlock()
	cancel() // nil if the worker has not stored it yet: panic
}

func work(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}
