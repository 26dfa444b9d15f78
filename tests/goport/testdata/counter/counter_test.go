package counter

import (
	"sync"
	"testing"
)

func TestScenario(t *testing.T) {
	c := &Counter{}
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Inc()
		}()
	}
	wg.Wait()
	if got := c.Value(); got != 2 {
		t.Fatalf("Value() = %d, want 2", got)
	}
}
