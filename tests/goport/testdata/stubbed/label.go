package stubbed

import (
	"strings"
	"sync"
)

// Labeler keys its counts by an upper-cased label: strings has no gosim model, so
// fuzzfarm port writes a stub for strings.ToUpper that the user fills in.
type Labeler struct {
	mu     sync.Mutex
	counts map[string]int
}

func (l *Labeler) Add(label string) {
	key := strings.ToUpper(label)
	l.mu.Lock()
	l.counts[key]++
	l.mu.Unlock()
}
