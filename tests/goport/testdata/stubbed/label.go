package stubbed

import (
	"net/textproto"
	"sync"
)

// Labeler keys its counts by a canonical header key: net/textproto has no gosim model, so
// fuzzfarm port writes a stub for textproto.CanonicalMIMEHeaderKey that the user fills in.
type Labeler struct {
	mu     sync.Mutex
	counts map[string]int
}

func (l *Labeler) Add(label string) {
	key := textproto.CanonicalMIMEHeaderKey(label)
	l.mu.Lock()
	l.counts[key]++
	l.mu.Unlock()
}
