// Package counter: a plain int field incremented by two goroutines (the grpc-go plain-field
// race in miniature). Buggy: Inc does not take the mutex; fixed: it does.
package counter

import "sync"

type Counter struct {
	mu sync.Mutex
	n  int
}

func (c *Counter) Value() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
