// Package pool: a field `done` next to a method `Done` (the port renames the field, Python has
// one namespace for both); a worker writes it while the test reads it through Done. Buggy:
// neither takes the mutex; fixed: both do. A race report must name the field as Go does.
package pool

import "sync"

type Pool struct {
	mu   sync.Mutex
	done int
}

func (p *Pool) Run() {
	go p.record()
}
