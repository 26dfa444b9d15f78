package checker

import (
	"errors"
	"sync"
	"time"
)

// Group allows to start a group of goroutines and wait for their completion
// (apimachinery pkg/util/wait, v0.22.15).
type Group struct {
	wg sync.WaitGroup
}

// upstream: kubernetes/apimachinery pkg/util/wait/wait.go:48-50 @v0.22.15
func (g *Group) Wait() {
	g.wg.Wait()
}

// upstream: kubernetes/apimachinery pkg/util/wait/wait.go:69-75 @v0.22.15
func (g *Group) Start(f func()) {
	g.wg.Add(1)
	// upstream: kubernetes/apimachinery pkg/util/wait/wait.go:71-74 @v0.22.15
	go func() {
		defer g.wg.Done()
		f()
	}()
}

// ErrWaitTimeout is returned when the condition exited without success.
var ErrWaitTimeout = errors.New("timed out waiting for the condition")

// Poll waits interval, tries the condition, and again until it holds or timeout passed
// (a stub of upstream's poller: its ticker goroutine orders nothing the bug depends on).
//
// upstream: kubernetes/apimachinery pkg/util/wait/wait.go:439-441 @v0.22.15
func Poll(interval, timeout time.Duration, condition func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		time.Sleep(interval)
		ok, err := condition()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return ErrWaitTimeout
		}
	}
}
