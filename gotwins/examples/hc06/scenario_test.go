package hc06

import (
	"testing"
	"time"
)

// TestScenario is the Python case's main: Start, then a config reload calls Stop at the moment
// of the first shard update (10 s there, 10 ms here).
func TestScenario(t *testing.T) {
	qm := NewQueueManager(QueueManagerConfig{Capacity: 10, MaxSamplesPerSend: 100, BatchSendDeadline: 5 * time.Second}, 60*time.Millisecond)
	qm.Start()
	time.Sleep(shardUpdateDuration)
	qm.Stop()
}
