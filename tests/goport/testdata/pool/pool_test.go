package pool

import (
	"testing"
	"time"
)

func TestScenario(t *testing.T) {
	p := &Pool{}
	p.Run()
	if n := p.Done(); n > 1 {
		t.Fatalf("Done() = %d, want at most 1", n)
	}
	time.Sleep(10 * time.Millisecond)
}
