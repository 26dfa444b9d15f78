// Package hc11 is the Go twin of fuzzfarm/examples/hc11_poll_until_leak.py (HC-11,
// kubernetes/kubernetes issue #71277, fix PR #71326 apimachinery commit 49fd9693): PollUntil
// leaves its poller goroutine running when the caller's stop channel lives as long as the
// process.
//
// wait.go holds WaitFor and poller at the last commit before the issue (both variants use them,
// as the Python case does); wait_buggy.go and wait_fixed.go hold PollUntil before and at the
// fix (with the fix's contextForChannel).
package hc11

import (
	"errors"
	"time"
)

// ConditionFunc is wait.ConditionFunc.
type ConditionFunc func() (done bool, err error)

// WaitFunc is wait.WaitFunc.
type WaitFunc func(done <-chan struct{}) <-chan struct{}

// ErrWaitTimeout is wait.ErrWaitTimeout.
var ErrWaitTimeout = errors.New("timed out waiting for the condition")

// upstream: kubernetes/apimachinery pkg/util/wait/wait.go:327-343 @1b0702fe2927f82126da9c2ecf567f14676f6072
func WaitFor(wait WaitFunc, fn ConditionFunc, done <-chan struct{}) error {
	c := wait(done)
	for {
		_, open := <-c
		ok, err := fn()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if !open {
			break
		}
	}
	return ErrWaitTimeout
}

// upstream: kubernetes/apimachinery pkg/util/wait/wait.go:353-392 @1b0702fe2927f82126da9c2ecf567f14676f6072
func poller(interval, timeout time.Duration) WaitFunc {
	return WaitFunc(func(done <-chan struct{}) <-chan struct{} {
		ch := make(chan struct{})

		go func() {
			defer close(ch)

			tick := time.NewTicker(interval)
			defer tick.Stop()

			var after <-chan time.Time
			if timeout != 0 {
				timer := time.NewTimer(timeout)
				after = timer.C
				defer timer.Stop()
			}

			for {
				select {
				case <-tick.C:
					// If the consumer isn't ready for this signal drop it and
					// check the other channels.
					select {
					case ch <- struct{}{}:
					default:
					}
				case <-after:
					return
				case <-done:
					return
				}
			}
		}()

		return ch
	})
}
