package hc11

import (
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"
)

// TestScenario is the Python case's main: a caller (like cache.WaitForCacheSync) passes the
// process-lifetime stop channel; the condition holds at its second check. Then the leak check:
// every goroutine the scenario started must have exited within the grace (10 s there, 10 ms
// here), as goleak would check; Go itself does not report leaks.
func TestScenario(t *testing.T) {
	before := runtime.NumGoroutine()
	processStop := make(chan struct{}) // never closed
	n := 0
	cacheSynced := func() (bool, error) { n++; return n >= 2, nil }
	if err := PollUntil(time.Millisecond, cacheSynced, processStop); err != nil {
		t.Fatal(err)
	}
	checkLeaks(t, before, 10*time.Millisecond)
}

func checkLeaks(t *testing.T, before int, grace time.Duration) {
	deadline := time.Now().Add(grace)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
			t.Fatalf("goroutine leak: %d goroutines still running %v after the scenario", runtime.NumGoroutine()-before, grace)
		}
		time.Sleep(time.Millisecond)
	}
}
