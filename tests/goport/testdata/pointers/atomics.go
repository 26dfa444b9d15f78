package pointers

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The sync/atomic functions on plain variables and fields.

type stats struct {
	hits  int64
	state uint32
	flag  int32
	data  int
}

var gcount int32

func AtomicFuncs() {
	var n int32
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); atomic.AddInt32(&n, 2) }()
	}
	wg.Wait()
	s := &stats{}
	atomic.StoreUint32(&s.state, 1)
	ok1 := atomic.CompareAndSwapUint32(&s.state, 1, 2)
	ok2 := atomic.CompareAndSwapUint32(&s.state, 1, 3)
	old := atomic.SwapInt64(&s.hits, 40)
	var u uint32
	dec := atomic.AddUint32(&u, ^uint32(0)) // wraps to the max
	big := int32(2147483647)
	wrapped := atomic.AddInt32(&big, 1)
	andOld := atomic.AndInt32(&s.flag, 0)
	atomic.OrInt32(&s.flag, 6)
	atomic.AddInt32(&gcount, 3)
	// plain reads after wg.Wait and in the one goroutine: ordered, no race
	result("%d %v %v %d %d %d %d %d %d %d %d", n, ok1, ok2, atomic.LoadUint32(&s.state), old, atomic.LoadInt64(&s.hits),
		dec, wrapped, andOld, s.flag, atomic.LoadInt32(&gcount))
}

// a store/load pair orders the plain write before the plain read (the memory model's
// synchronized-before): no race
func AtomicPublishes() {
	s := &stats{}
	go func() {
		s.data = 42
		atomic.StoreInt32(&s.flag, 1)
	}()
	for atomic.LoadInt32(&s.flag) == 0 {
		runtime.Gosched()
	}
	result("%d", s.data)
}

// an atomic add in one goroutine, a plain read of the same variable in another: a race
func AtomicAddPlainReadRace() {
	var n int32
	done := make(chan bool)
	go func() { atomic.AddInt32(&n, 1); done <- true }()
	gsink = n
	<-done
}

// a plain write in one goroutine, an atomic load in another: a race
func PlainWriteAtomicLoadRace() {
	s := &stats{}
	done := make(chan bool)
	go func() { s.flag = 1; done <- true }()
	_ = atomic.LoadInt32(&s.flag)
	<-done
}

// a plain read and an atomic load of the same variable: two reads, no race
func PlainReadAtomicLoad() {
	s := &stats{flag: 3}
	done := make(chan bool)
	go func() { gsink = s.flag; done <- true }()
	v := atomic.LoadInt32(&s.flag)
	<-done
	result("%d", v)
}

// atomic adds from several goroutines never race among themselves; the plain read after
// wg.Wait is ordered after all of them
func AtomicCounterThenPlainRead() {
	s := &stats{}
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); atomic.AddInt64(&s.hits, 1) }()
	}
	wg.Wait()
	result("%d", s.hits)
}

// a compare-and-swap that fails is still an atomic write for the race detector
func FailedCASPlainReadRace() {
	s := &stats{}
	done := make(chan bool)
	go func() { atomic.CompareAndSwapUint32(&s.state, 5, 6); done <- true }()
	gsink = int32(s.state)
	<-done
}

// a nil pointer given to an atomic function
func AtomicNil() {
	var p *int32
	atomic.AddInt32(p, 1)
}

// an atomic load, then (by the clock only: a sleep orders nothing) a plain write: a race
func AtomicLoadThenPlainWriteRace() {
	s := &stats{}
	done := make(chan bool)
	go func() { gsink = atomic.LoadInt32(&s.flag); done <- true }()
	time.Sleep(10 * time.Millisecond)
	s.flag = 1
	<-done
}

// two atomic stores, the plain read ordered after the second only: it races with the first
// (a store releases its own clock, not the first storer's)
func PlainReadAfterOneOfTwoStoresRace() {
	var n int32
	a, b := make(chan bool), make(chan bool)
	go func() { atomic.StoreInt32(&n, 1); a <- true }()
	go func() { time.Sleep(10 * time.Millisecond); atomic.StoreInt32(&n, 2); b <- true }()
	<-b
	gsink = n
	<-a
}

// ... and no race when the second waits with read-modify-writes (adding 0 until it sees the
// store): the add that sees it acquires what the store released
func PlainReadAfterStoreThenAdd() {
	var n int32
	a, b := make(chan bool), make(chan bool)
	go func() { atomic.StoreInt32(&n, 1); a <- true }()
	go func() {
		for atomic.AddInt32(&n, 0) == 0 {
			runtime.Gosched()
		}
		atomic.AddInt32(&n, 1)
		b <- true
	}()
	<-b
	v := n
	<-a
	result("%d", v)
}

var gsink int32
