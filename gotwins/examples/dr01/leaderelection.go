// Package dr01 is the Go twin of fuzzfarm/examples/dr01_leader_observed_record.py (DR-01,
// kubernetes/kubernetes PR #97419, client-go merge c71768cb): IsLeader reads observedRecord
// while the renew loop's tryAcquireOrRenew writes it.
//
// leaderelection.go holds what the fix leaves alone, at its parent; leaderelection_buggy.go and
// leaderelection_fixed.go hold IsLeader and tryAcquireOrRenew before and at the fix (with the
// fix's accessors). The resource lock is an in-memory lease (Get and Update are API round
// trips upstream); wait.Until and wait.PollImmediateUntil are written out in renew; metrics,
// events and logging are left out. Time is scaled from the Python scenario's seconds to ms.
package dr01

import (
	"context"
	"sync"
	"time"
)

// LeaderElectionRecord is resourcelock.LeaderElectionRecord.
type LeaderElectionRecord struct {
	HolderIdentity    string
	LeaderTransitions int
}

// leaseLock is an in-memory resource lock: the Lease object on the API server.
type leaseLock struct {
	mu       sync.Mutex
	identity string
	record   *LeaderElectionRecord
}

func (l *leaseLock) Get(ctx context.Context) (*LeaderElectionRecord, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := *l.record
	return &r, nil
}

func (l *leaseLock) Update(ctx context.Context, r LeaderElectionRecord) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.record = &r
	return nil
}

func (l *leaseLock) Identity() string { return l.identity }

// LeaderElectionConfig keeps the fields used here.
type LeaderElectionConfig struct {
	Lock          *leaseLock
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
}

// upstream: kubernetes/client-go tools/leaderelection/leaderelection.go:76-109 @c36b96a74bd5d233e22f83bf8ab2968016010eab
func NewLeaderElector(lec LeaderElectionConfig) (*LeaderElector, error) {
	le := LeaderElector{
		config: lec,
	}
	return &le, nil
}

// upstream: kubernetes/client-go tools/leaderelection/leaderelection.go:260-286 @c36b96a74bd5d233e22f83bf8ab2968016010eab
func (le *LeaderElector) renew(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	waitUntil(func() {
		timeoutCtx, timeoutCancel := context.WithTimeout(ctx, le.config.RenewDeadline)
		defer timeoutCancel()
		err := pollImmediateUntil(le.config.RetryPeriod, func() (bool, error) {
			return le.tryAcquireOrRenew(timeoutCtx), nil
		}, timeoutCtx.Done())

		if err == nil {
			return
		}
		cancel()
	}, le.config.RetryPeriod, ctx.Done())
}

// waitUntil is apimachinery's wait.Until: f every period until stopCh closes (no jitter).
func waitUntil(f func(), period time.Duration, stopCh <-chan struct{}) {
	for {
		select {
		case <-stopCh:
			return
		default:
		}
		f()
		select {
		case <-stopCh:
			return
		case <-time.After(period):
		}
	}
}

// pollImmediateUntil is apimachinery's wait.PollImmediateUntil: the condition at once, then
// every interval until it holds or stopCh closes.
func pollImmediateUntil(interval time.Duration, condition func() (bool, error), stopCh <-chan struct{}) error {
	for {
		if ok, err := condition(); err != nil || ok {
			return err
		}
		select {
		case <-stopCh:
			return context.DeadlineExceeded
		case <-time.After(interval):
		}
	}
}
