//go:build fixed

package tracker

import "context"

func (t *Tracker) Start(ctx context.Context, name string) {
	ctx, cancel := context.WithCancel(ctx)
	t.mu.Lock()
	t.cancels[name] = cancel
	t.mu.Unlock()
	go work(ctx)
}
