package dr01

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestScenario is the Python case's main: the elector's renew loop runs (retry period 2, s
// there, ms here) while a health check calls IsLeader three times 1.5 apart; the process stops
// after 5.
func TestScenario(t *testing.T) {
	lock := &leaseLock{identity: "node-a", record: &LeaderElectionRecord{HolderIdentity: "node-a", LeaderTransitions: 1}}
	le, _ := NewLeaderElector(LeaderElectionConfig{Lock: lock, LeaseDuration: 15 * time.Millisecond,
		RenewDeadline: 10 * time.Millisecond, RetryPeriod: 2 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); le.renew(ctx) }()
	go func() { // a caller of the public API (e.g. a /healthz handler)
		defer wg.Done()
		for i := 0; i < 3; i++ {
			le.IsLeader()
			time.Sleep(1500 * time.Microsecond)
		}
	}()
	time.Sleep(5 * time.Millisecond)
	cancel()
	wg.Wait()
}
