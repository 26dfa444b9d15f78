package hc19

import (
	"sync"
	"testing"
)

// TestScenario is upstream's TestForceQueueShutdownUsingShutDown (the test that flaked), which
// the Python case's main retells.
func TestScenario(t *testing.T) {
	q := newQueue()

	q.Add("foo")
	q.Add("bar")

	q.Get()
	q.Get()

	finishedWG := sync.WaitGroup{}
	finishedWG.Add(1)
	go func() {
		defer finishedWG.Done()
		q.ShutDownWithDrain()
	}()

	// ShutDownWithDrain is called before ShutDown
	shuttingDown := false
	for !shuttingDown {
		_, shuttingDown = q.Get()
	}

	// Use ShutDown to force the queue to shut down (a second SIGTERM/SIGINT)
	q.ShutDown()

	finishedWG.Wait()
}
