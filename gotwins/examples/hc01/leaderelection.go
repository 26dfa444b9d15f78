// Package hc01 is the Go twin of fuzzfarm/examples/hc01_leader_cancel.py (HC-01,
// kubernetes/kubernetes issue #127665): the "stopped leading" callback calls a cancel func
// that "started leading" may not have set yet.
//
// Stubbed: the lease lock and its API round trips (acquire succeeds at once unless ctx is
// done, every renewal succeeds), klog, metrics, runtime.HandleCrash (it re-panics, as
// upstream's default does). Kept: Run's defers, the context derived before
// OnStartedLeading's goroutine, renew's own child context and its wait on ctx.Done().
// Time is scaled from the Python scenario's seconds to milliseconds.
package hc01

import (
	"context"
	"time"
)

// LeaderCallbacks is client-go's leaderelection.LeaderCallbacks (the two callbacks used here).
type LeaderCallbacks struct {
	OnStartedLeading func(context.Context)
	OnStoppedLeading func()
}

// LeaderElectionConfig keeps the fields the scenario uses.
type LeaderElectionConfig struct {
	RetryPeriod time.Duration
	Callbacks   LeaderCallbacks
}

// LeaderElector is client-go's leaderelection.LeaderElector, reduced to its config.
type LeaderElector struct {
	config LeaderElectionConfig
}

// upstream: kubernetes/client-go tools/leaderelection/leaderelection.go:76-114 @5d128adc872ea1cbe3c0e005e71c26d218ae41aa
func NewLeaderElector(lec LeaderElectionConfig) (*LeaderElector, error) {
	return &LeaderElector{config: lec}, nil
}

// upstream: kubernetes/client-go tools/leaderelection/leaderelection.go:211-222 @5d128adc872ea1cbe3c0e005e71c26d218ae41aa
func (le *LeaderElector) Run(ctx context.Context) {
	defer le.config.Callbacks.OnStoppedLeading()

	if !le.acquire(ctx) {
		return // ctx signalled done
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go le.config.Callbacks.OnStartedLeading(ctx)
	le.renew(ctx)
}

// acquire is stubbed: the first tryAcquireOrRenew succeeds unless ctx is already done.
// upstream: kubernetes/client-go tools/leaderelection/leaderelection.go:252-275 @5d128adc872ea1cbe3c0e005e71c26d218ae41aa
func (le *LeaderElector) acquire(ctx context.Context) bool {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	return ctx.Err() == nil
}

// renew keeps its child context and its loop until ctx is done; every renewal succeeds.
// upstream: kubernetes/client-go tools/leaderelection/leaderelection.go:278-305 @5d128adc872ea1cbe3c0e005e71c26d218ae41aa
func (le *LeaderElector) renew(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(le.config.RetryPeriod):
		}
	}
}
