// Package wait is a minimal stand-in for k8s.io/apimachinery/pkg/util/wait, written for
// fuzzfarm's tests (Go here has no module proxy): the functions the Go programs under
// tests/goport/testdata/k8s/app call, with upstream's behaviour and synchronisation, line for
// line where it matters. Each function names the upstream function it stands for, as
// file.go:line of apimachinery at eed236ceee2c19c2753a3d93ac0631dc20750454. Left out: the
// runtime.HandleCrash around callbacks (it re-panics by default) and clock injection.
package wait

import (
	"context"
	"errors"
	"math/rand"
	"time"
)

// NeverStop: wait.go:40.
var NeverStop <-chan struct{} = make(chan struct{})

// ErrWaitTimeout: error.go:28 (upstream wraps the text in errInterrupted; only its identity and
// text matter to callers here).
var ErrWaitTimeout = errors.New("timed out waiting for the condition")

// ConditionFunc: wait.go:102; ConditionWithContextFunc: wait.go:108.
type ConditionFunc func() (done bool, err error)
type ConditionWithContextFunc func(context.Context) (done bool, err error)

// stopContext: wait.go:128 channelContext, done once the channel is closed.
type stopContext struct{ ch <-chan struct{} }

func (c stopContext) Done() <-chan struct{}       { return c.ch }
func (c stopContext) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c stopContext) Value(key any) any           { return nil }
func (c stopContext) Err() error {
	select {
	case <-c.ch:
		return context.Canceled
	default:
	}
	return nil
}

// ContextForChannel: wait.go:120.
func ContextForChannel(parentCh <-chan struct{}) context.Context { return stopContext{ch: parentCh} }

// Jitter: wait.go:92.
func Jitter(duration time.Duration, maxFactor float64) time.Duration {
	if maxFactor <= 0.0 {
		maxFactor = 1.0
	}
	return duration + time.Duration(rand.Float64()*maxFactor*float64(duration))
}

// Forever: wait.go:79.
func Forever(f func(), period time.Duration) { Until(f, period, NeverStop) }
