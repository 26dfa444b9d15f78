// Package dr03 is the Go twin of fuzzfarm/examples/dr03_delegating_logger.py (DR-03,
// kubernetes-sigs/controller-runtime issue #1359, fix PR #1361 merged as ad730f81): the
// DelegatingLogger's promoted V reads the embedded logger that Fulfill replaces.
//
// log.go is pkg/log/log.go (v0.8.1, unchanged by the fix) with its fallback after 30 ms instead
// of 30 s (the Python scenario's seconds scaled to ms); deleg_buggy.go and deleg_fixed.go are
// pkg/log/deleg.go before and at the fix, with go-logr's Logger (an interface in logr v0.x)
// reduced to the methods used here.
package dr03

import (
	"sync"
	"time"
)

// Logger is logr.Logger (v0.x: an interface).
type Logger interface {
	Info(msg string, keysAndValues ...interface{})
	V(level int) Logger
	WithName(name string) Logger
	WithValues(keysAndValues ...interface{}) Logger
}

// NullLogger is log.NullLogger: it discards everything.
type NullLogger struct{}

// Info discards the line.
func (NullLogger) Info(string, ...interface{}) {}

// V returns the null logger.
func (n NullLogger) V(int) Logger { return n }

// WithName returns the null logger.
func (n NullLogger) WithName(string) Logger { return n }

// WithValues returns the null logger.
func (n NullLogger) WithValues(...interface{}) Logger { return n }

// upstream: kubernetes-sigs/controller-runtime pkg/log/log.go:45-51 @9e78e653228851684b6b9cdabe5aae8559fe3722
func SetLogger(l Logger) {
	loggerWasSetLock.Lock()
	defer loggerWasSetLock.Unlock()

	loggerWasSet = true
	Log.Fulfill(l)
}

// upstream: kubernetes-sigs/controller-runtime pkg/log/log.go:60-70 @9e78e653228851684b6b9cdabe5aae8559fe3722
func init() {
	// Init is blocking, so start a new goroutine
	go func() {
		time.Sleep(30 * time.Millisecond)
		loggerWasSetLock.Lock()
		defer loggerWasSetLock.Unlock()
		if !loggerWasSet {
			Log.Fulfill(NullLogger{})
		}
	}()
}

var (
	loggerWasSetLock sync.Mutex
	loggerWasSet     bool
)

// Log is the base logger used by kubebuilder.
var Log = NewDelegatingLogger(NullLogger{})
