package hc12

import (
	"errors"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"
)

// TestScenario is the Python case's main: perform over three Pods, the second of which fails
// (connection refused); each action is an API call (a yield here). Then the leak check: every
// goroutine the scenario started must have exited within the grace, as goleak would check.
func TestScenario(t *testing.T) {
	before := runtime.NumGoroutine()
	infos := ResourceList{{"Pod", "web-0"}, {"Pod", "web-1"}, {"Pod", "web-2"}}
	err := perform(infos, func(i *Info) error {
		runtime.Gosched() // talk to the API server
		if i.Name == "web-1" {
			return errors.New("connection refused")
		}
		return nil
	})
	if err == nil {
		t.Fatal("perform: want the failed resource's error")
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
