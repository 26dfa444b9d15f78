package tracker

import (
	"context"
	"testing"
	"time"
)

func TestScenario(t *testing.T) {
	tr := NewTracker()
	names := []string{"a", "b"}
	for _, n := range names {
		tr.Start(context.Background(), n)
	}
	time.Sleep(50 * time.Millisecond)
	for _, n := range names {
		tr.Stop(n)
	}
}
