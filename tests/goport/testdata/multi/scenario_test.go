package multi

import (
	"errors"
	"sync"
	"testing"

	"example.com/multi/store"
)

func TestScenario(t *testing.T) {
	s := NewServer("a")
	if s.opts.Size != 4 {
		t.Fatalf("opts.Size = %d, want 4 (a struct value is copied)", s.opts.Size)
	}
	if _, err := s.counter.Get("k"); !errors.Is(err, store.ErrEmpty) {
		t.Fatalf("Get before any hit: %v, want ErrEmpty", err)
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Handle("k")
		}()
	}
	wg.Wait()
	if n, _ := s.counter.Get("k"); n != 2 {
		t.Fatalf("%d hits, want 2", n)
	}
}
