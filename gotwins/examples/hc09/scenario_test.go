package hc09

import (
	"runtime"
	"testing"
	"time"
)

// TestScenario is the Python case's main: a tracked task that ends after 1 (s there, ms here),
// a background goroutine that attaches another task after 1, and the stop signal after 1.
func TestScenario(t *testing.T) {
	s := newServer()
	go s.run()
	s.goAttach(func() { time.Sleep(time.Millisecond) }) // a tracked task still running at shutdown
	go func() {                                         // the apply path, attaching on its own schedule
		time.Sleep(time.Millisecond)
		s.goAttach(runtime.Gosched)
	}()
	time.Sleep(time.Millisecond) // the stop signal arrives while background work is still attaching
	close(s.stop)
	<-s.done
	time.Sleep(time.Millisecond)
}
