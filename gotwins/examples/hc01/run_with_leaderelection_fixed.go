//go:build fixed

package hc01

import (
	"context"
	"time"
)

// NewRunner returns a controller's Run method.
type NewRunner func() (func(ctx context.Context, workers int), error)

// The fix the Python case models: PR #127668's diff (kubernetes/kubernetes, in the stored issues
// corpus: "ctx, cancel := context.WithCancel(ctx)" replaces "var cancel context.CancelFunc" at the
// top of RunWithLeaderElection, so cancel exists before the elector starts; that PR was closed
// unmerged). The merged fix, PR #127834, is not in the stored corpus (the kubernetes repository is
// too large to fetch here, and the stored copy of this file is the buggy one), so the lines
// cited are the buggy file's.
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
