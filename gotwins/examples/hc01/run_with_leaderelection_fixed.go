//go:build fixed

package hc01

import (
	"context"
	"time"
)

// NewRunner returns a controller's Run method.
type NewRunner func() (func(ctx context.Context, workers int), error)

// The fixed file was not in the stored corpus (only the buggy version of this file is). This is
// the fix the Python example models, the alternative discussed in PRs #127668/#127737: the
// cancellable context and its cancel exist before the elector starts (the merged PR #127834
// only added a nil check before cancel()).
// upstream: kubernetes/kubernetes pkg/controlplane/controller/leaderelection/run_with_leaderelection.go:38-91 @1892e4deb967a2b39cfc2fea87a8bd49274449ef
func RunWithLeaderElection(ctx context.Context, newRunnerFn NewRunner) {
	ctx, cancel := context.WithCancel(ctx)

	callbacks := LeaderCallbacks{
		OnStartedLeading: func(_ context.Context) {
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
