//go:build !fixed

package hc01

import (
	"context"
	"time"
)

// NewRunner returns a controller's Run method.
type NewRunner func() (func(ctx context.Context, workers int), error)

// upstream: kubernetes/kubernetes pkg/controlplane/controller/leaderelection/run_with_leaderelection.go:38-91 @1892e4deb967a2b39cfc2fea87a8bd49274449ef
func RunWithLeaderElection(ctx context.Context, newRunnerFn NewRunner) {
	var cancel context.CancelFunc

	callbacks := LeaderCallbacks{
		OnStartedLeading: func(ctx context.Context) {
			ctx, cancel = context.WithCancel(ctx)
			var err error
			run, err := newRunnerFn()
			if err != nil {
				return
			}
			run(ctx, 1)
		},
		OnStoppedLeading: func() {
			cancel()
		},
	}

	le, err := NewLeaderElector(LeaderElectionConfig{
		RetryPeriod: 2 * time.Millisecond,
		Callbacks:   callbacks,
	})
	if err != nil {
		return
	}
	le.Run(ctx)
}
