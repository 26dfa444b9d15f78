package lang

import (
	"sync"
	"sync/atomic"
)

// Typed atomics (happens-before edges, never races among themselves) and sync.Map.

type stats struct {
	hits  atomic.Int64
	ready atomic.Bool
	cfg   atomic.Pointer[config]
	last  atomic.Value
	data  int
}

type config struct{ limit int }

func AtomicsOrder() {
	s := &stats{}
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); s.hits.Add(1) }()
	}
	s.cfg.Store(&config{limit: 5})
	s.last.Store("x")
	go func() { s.data = 42; s.ready.Store(true) }()
	for !s.ready.Load() {
	}
	d := s.data // ordered after the write by the Store/Load pair
	wg.Wait()
	old := s.cfg.Swap(&config{limit: 9})
	var u atomic.Uint32
	u.Add(^uint32(0))
	// (int: one integer type in interfaces keeps the package's type assertions translatable)
	result("%d %d %d %d %v %v %d", int(s.hits.Load()), d, old.limit, s.cfg.Load().limit, s.last.Load(),
		s.hits.CompareAndSwap(3, 10), int(u.Load()))
}

// The flag is set before the data is written: the reader's Load orders nothing.
func AtomicFlagTooEarly() {
	s := &stats{}
	done := make(chan bool)
	go func() { s.ready.Store(true); s.data = 1; done <- true }()
	for !s.ready.Load() {
	}
	sink = s.data // a load the compiler keeps (`_ = s.data` may compile to no read at all)
	<-done
}

var sink int

func SyncMapOps() {
	var m sync.Map
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func(k int) { defer wg.Done(); m.Store(k, k*10) }(i)
	}
	wg.Wait()
	v, ok := m.Load(1)
	act, loaded := m.LoadOrStore(1, 99)
	act2, loaded2 := m.LoadOrStore(5, 50)
	m.Delete(0)
	_, ok0 := m.Load(0)
	sum := 0
	m.Range(func(k, v any) bool { sum += v.(int); return true })
	swapped := m.CompareAndSwap(2, 20, 21)
	result("%v %v %v %v %v %v %v %d %v", v, ok, act, loaded, act2, loaded2, ok0, sum, swapped)
}

// A value published through a sync.Map: Store before the Load that sees it.
func SyncMapPublishes() {
	var m sync.Map
	x := 0
	go func() { x = 1; m.Store("k", true) }()
	for {
		if _, ok := m.Load("k"); ok {
			break
		}
	}
	result("%d", x)
}
