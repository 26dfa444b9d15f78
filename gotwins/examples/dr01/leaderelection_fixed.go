//go:build fixed

package dr01

import (
	"context"
	"sync"
	"time"
)

// LeaderElector keeps the observed record, its time and (the fix) their lock.
type LeaderElector struct {
	config LeaderElectionConfig
	// internal bookkeeping
	observedRecord LeaderElectionRecord
	observedTime   time.Time

	// used to lock the observedRecord
	observedRecordLock sync.Mutex
}

// upstream: kubernetes/client-go tools/leaderelection/leaderelection.go:237-239 @c71768cb9189b4e5b90dbb528b0b9c8d64ca7da4
func (le *LeaderElector) IsLeader() bool {
	return le.getObservedRecord().HolderIdentity == le.config.Lock.Identity()
}

// The Create path (no lease yet) and the raw-record comparison left out: the lease exists.
// upstream: kubernetes/client-go tools/leaderelection/leaderelection.go:317-373 @c71768cb9189b4e5b90dbb528b0b9c8d64ca7da4
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

	le.setObservedRecord(&leaderElectionRecord)
	return true
}

// upstream: kubernetes/client-go tools/leaderelection/leaderelection.go:403-409 @c71768cb9189b4e5b90dbb528b0b9c8d64ca7da4
func (le *LeaderElector) setObservedRecord(observedRecord *LeaderElectionRecord) {
	le.observedRecordLock.Lock()
	defer le.observedRecordLock.Unlock()

	le.observedRecord = *observedRecord
	le.observedTime = time.Now()
}

// upstream: kubernetes/client-go tools/leaderelection/leaderelection.go:413-418 @c71768cb9189b4e5b90dbb528b0b9c8d64ca7da4
func (le *LeaderElector) getObservedRecord() LeaderElectionRecord {
	le.observedRecordLock.Lock()
	defer le.observedRecordLock.Unlock()

	return le.observedRecord
}
