// Package gostrings exercises the strings model of fuzzfarm port (docs/PORT.md#models): each
// test checks results real Go gives (go test passes), so the translated test passing means the
// model gave Go's results; the Builder tests race or panic exactly when Go does.
package gostrings

import (
	"strings"
	"sync"
)

// joined renders a slice so a whole result compares as one string: its length, then each element quoted.
func joined(xs []string) string {
	var b strings.Builder
	b.WriteString(strings.Repeat("#", len(xs)))
	for _, x := range xs {
		b.WriteString("<" + x + ">")
	}
	if xs == nil {
		b.WriteString("nil")
	}
	return b.String()
}

// sharedBuilder writes one Builder from two goroutines; locked guards it with a mutex.
func sharedBuilder(locked bool) string {
	var b strings.Builder
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if locked {
				mu.Lock()
				defer mu.Unlock()
			}
			b.WriteString("ab")
		}()
	}
	wg.Wait()
	return b.String()
}

// copiedBuilder writes to a copy of a Builder that was written: Go's copyCheck panics.
func copiedBuilder() string {
	var b strings.Builder
	b.WriteString("x")
	c := b
	c.WriteString("y")
	return c.String()
}
