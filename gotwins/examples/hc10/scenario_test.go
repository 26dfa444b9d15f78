package hc10

import (
	"context"
	"testing"
	"time"
)

// TestScenario is the Python case's main: config.New, the loader's hook runs setupRunners (the
// manager is elected after 0.5, s there, ms here), the config map changes after 1 and the hook
// runs setupRunners again on the same config (that manager already holds the lease); the test
// ends right after the reload and gives the goroutines time to finish.
func TestScenario(t *testing.T) {
	ctx, shutdown := context.WithCancel(context.Background())
	cfg, _ := NewServer()
	electionDelay = 500 * time.Microsecond
	if err := setupRunners(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Millisecond)
	electionDelay = 0
	if err := setupRunners(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	shutdown()
	time.Sleep(5 * time.Millisecond)
}
