//go:build fixed

package hc11

import (
	"context"
	"time"
)

// upstream: kubernetes/apimachinery pkg/util/wait/wait.go:259-270 @49fd9693305e0d8297fa7ff0f8ae762b9ed19430
func contextForChannel(parentCh <-chan struct{}) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())

	go func() {
		select {
		case <-parentCh:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// upstream: kubernetes/apimachinery pkg/util/wait/wait.go:374-378 @49fd9693305e0d8297fa7ff0f8ae762b9ed19430
func PollUntil(interval time.Duration, condition ConditionFunc, stopCh <-chan struct{}) error {
	ctx, cancel := contextForChannel(stopCh)
	defer cancel()
	return WaitFor(poller(interval, 0), condition, ctx.Done())
}
