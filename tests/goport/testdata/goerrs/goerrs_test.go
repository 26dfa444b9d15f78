package goerrs

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestJoinNils(t *testing.T)     { JoinNils() }
func TestJoinText(t *testing.T)     { JoinText() }
func TestJoinIs(t *testing.T)       { JoinIs() }
func TestJoinIdentity(t *testing.T) { JoinIdentity() }
func TestJoinAssert(t *testing.T)   { JoinAssert() }

func TestJoinFromGoroutines(t *testing.T) {
	err := Accumulate(4)
	lines := strings.Split(err.Error(), "\n")
	result("%d %t", len(lines), errors.Is(err, ErrA))
}

// go test's count: the test goroutine and main at the start, one more in a goroutine the test
// started (read there: once it has sent, it may or may not have exited when the test reads again,
// in Go as in the port).
func TestNumGoroutineBaseline(t *testing.T) {
	base := runtime.NumGoroutine()
	child := make(chan int)
	go func() { child <- runtime.NumGoroutine() }()
	result("%d %d", base, <-child)
}

// In a subtest: main, the parent test waiting in t.Run, the subtest.
func TestNumGoroutineSubtest(t *testing.T) {
	var sub int
	t.Run("sub", func(t *testing.T) { sub = runtime.NumGoroutine() })
	result("%d", sub)
}

// A goroutine left blocked: the leak check fails the test (as hc11's and hc12's do).
func TestNumGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	block := make(chan int)
	go func() { <-block }()
	if n := WaitGone(before, 10*time.Millisecond); n != 0 {
		t.Fatalf("goroutine leak: %d goroutines still running", n)
	}
}

// Goroutines that end: the check passes once they are gone.
func TestNumGoroutineNoLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	done := make(chan int, 2)
	for i := range 2 {
		go func() { done <- i }()
	}
	<-done
	<-done
	if n := WaitGone(before, 10*time.Millisecond); n != 0 {
		t.Fatalf("goroutine leak: %d goroutines still running", n)
	}
}
