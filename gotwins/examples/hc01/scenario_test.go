package hc01

import (
	"context"
	"testing"
	"time"
)

// TestScenario is the Python case's buggy()/fixed(): the elector runs, the test lets it run for
// a while (5 s there, 5 ms here), cancels the outer context and waits for Run to return.
func TestScenario(t *testing.T) {
	outer, cancelOuter := context.WithCancel(context.Background())
	exited := make(chan struct{})
	runController := func(ctx context.Context, workers int) { <-ctx.Done() }
	go func() {
		defer close(exited)
		RunWithLeaderElection(outer, func() (func(context.Context, int), error) { return runController, nil })
	}()
	time.Sleep(5 * time.Millisecond)
	cancelOuter()
	<-exited
}
