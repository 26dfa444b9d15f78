package stubbed

import (
	"sync"
	"testing"
)

func TestScenario(t *testing.T) {
	l := &Labeler{counts: map[string]int{}}
	var wg sync.WaitGroup
	for _, s := range []string{"a", "A"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Add(s)
		}()
	}
	wg.Wait()
	if l.counts["A"] != 2 {
		t.Fatalf("counts[A] = %d, want 2", l.counts["A"])
	}
}
