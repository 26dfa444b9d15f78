// Package store is a package of the module that package multi imports: fuzzfarm port translates
// both, a Python module each.
package store

import (
	"errors"
	"sync"
)

// ErrEmpty is what Get says of a key never hit.
var ErrEmpty = errors.New("no hits")

// Options configures a Counter (passed by value: the port copies it).
type Options struct {
	Name string
	Size int
}

// Counter counts hits per key.
type Counter struct {
	mu   sync.Mutex
	opts Options
	hits map[string]int
}

func New(o Options) *Counter {
	return &Counter{opts: o, hits: make(map[string]int, o.Size)}
}

// Inc counts a hit under the lock.
func (c *Counter) Inc(k string) {
	c.mu.Lock()
	c.hits[k]++
	c.mu.Unlock()
}

// IncUnlocked forgets the lock.
func (c *Counter) IncUnlocked(k string) {
	c.hits[k]++
}

func (c *Counter) Get(k string) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.hits[k]
	if n == 0 {
		return 0, ErrEmpty
	}
	return n, nil
}
