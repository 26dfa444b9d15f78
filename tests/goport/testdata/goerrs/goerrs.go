// Package goerrs: errors.Join and runtime.NumGoroutine, as a port sees them (docs/PORT.md).
package goerrs

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"
)

var ErrA = errors.New("a")
var ErrB = errors.New("b")
var ErrC = errors.New("c")

type MyErr struct{ msg string }

func (e *MyErr) Error() string { return "my " + e.msg }

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", "|") }

// JoinNils: errors.Join of nothing or of nils is nil.
func JoinNils() {
	var none error
	result("%t %t %t", errors.Join() == nil, errors.Join(nil, none) == nil, errors.Join(nil, ErrA) == nil)
}

// JoinText: Error() joins the non-nil errors' texts with newlines; nested joins nest.
func JoinText() {
	j := errors.Join(nil, ErrA, nil, &MyErr{"x"})
	k := errors.Join(j, ErrC)
	result("%s / %s / %v", oneLine(j), oneLine(k), strings.Contains(fmt.Sprintf("%v", k), "\n"))
}

// JoinIs: errors.Is walks the joined errors, through %w and nested joins.
func JoinIs() {
	j := errors.Join(ErrA, fmt.Errorf("wrapped: %w", ErrB))
	w := fmt.Errorf("outer: %w", errors.Join(nil, j))
	var nilErr error
	result("%t %t %t %t %t %t", errors.Is(j, ErrA), errors.Is(j, ErrB), errors.Is(w, ErrB), errors.Is(w, ErrC),
		errors.Is(nilErr, nil), errors.Is(nilErr, ErrA))
}

// JoinIdentity: each Join is a new error (a pointer), equal only to itself.
func JoinIdentity() {
	j := errors.Join(ErrA)
	k := errors.Join(ErrA)
	result("%t %t", j == k, j == j)
}

// JoinAssert: a failed assertion names Go's dynamic type, *errors.joinError.
func JoinAssert() {
	var err error = errors.Join(ErrA)
	_ = err.(*MyErr)
}

// Accumulate joins errors from goroutines under a mutex-free channel hand-off.
func Accumulate(n int) error {
	errs := make(chan error)
	for i := range n {
		go func() {
			if i%2 == 1 {
				errs <- fmt.Errorf("worker %d", i)
				return
			}
			errs <- nil
		}()
	}
	var res error
	for i := 0; i < n; i++ {
		res = errors.Join(res, <-errs)
	}
	return res
}

// WaitGone waits until NumGoroutine is back to before, for at most grace (the twins' leak check).
func WaitGone(before int, grace time.Duration) int {
	deadline := time.Now().Add(grace)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			return runtime.NumGoroutine() - before
		}
		time.Sleep(time.Millisecond)
	}
	return 0
}
