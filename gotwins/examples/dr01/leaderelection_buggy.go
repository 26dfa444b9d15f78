//go:build !fixed

package dr01

import (
	"context"
	"time"
)

// LeaderElector keeps the observed record and its time.
type LeaderElector struct {
	config LeaderElectionConfig
	// internal bookkeeping
	observedRecord LeaderElectionRecord
	observedTime   time.Time
}

// upstream: kubernetes/client-go tools/leaderelection/leaderelection.go:232-234 @c36b96a74bd5d233e22f83bf8ab2968016010eab
func (le *LeaderElector) IsLeader() bool {
	return le.observedRecord.HolderIdentity == le.config.Lock.Identity()
}

// The Create path (no lease yet) and the raw-record comparison left out: the lease exists.
// upstream: kubernetes/client-go tools/leaderelection/leaderelection.go:312-368 @c36b96a74bd5d233e22f83bf8ab2968016010eab
func (le *LeaderElector) tryAcquireOrRenew(ctx context.Context) bool {
	leaderElectionRecord := LeaderElectionRecord{
		HolderIdentity: le.config.Lock.Identity(),
	}

	// 1. obtain or create the ElectionRecord
	oldLeaderElectionRecord, err := le.config.Lock.Get(ctx)
	if err != nil {
		return false
	}

	// 3. We're going to try to update. The leaderElectionRecord is set to it's default
	// here. Let's correct it before updating.
	if le.IsLeader() {
		leaderElectionRecord.LeaderTransitions = oldLeaderElectionRecord.LeaderTransitions
	} else {
		leaderElectionRecord.LeaderTransitions = oldLeaderElectionRecord.LeaderTransitions + 1
	}

	// update the lock itself
	if err = le.config.Lock.Update(ctx, leaderElectionRecord); err != nil {
		return false
	}

	le.observedRecord = leaderElectionRecord
	le.observedTime = time.Now()
	return true
}
