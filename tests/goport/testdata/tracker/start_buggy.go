//go:build !fixed

package tracker

import "context"

func (t *Tracker) Start(ctx context.Context, name string) {
	go func() {
		ctx, cancel := context.WithCancel(ctx)
		t.mu.Lock()
		t.cancels[name] = cancel // BUG: stored only once this goroutine runs
		t.mu.Unlock()
		work(ctx)
	}()
}
