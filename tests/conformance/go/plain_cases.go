package main

// Cases run under a plain `go build` (mode "plain"), one run per fresh process: the panic or
// fatal error Go prints first, whether it deadlocks, what it observes. (The race runtime
// never reports a deadlock, so these do not run under -race.)

import (
	"context"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

var _ = register(CloseNilChan, CloseClosedChan, SendOnClosedChan, SendOnClosedWhileBlocked,
	RecvOnClosedChan, RecvClosedAfterDrain, SendNilChanBlocks, RecvNilChanBlocks, SelectNoCases,
	SelectDefaultNothingReady, SelectDefaultReady, SelectSendOnClosed, SelectNilCasesOnly,
	RangeOverClosedChan, LenCap, MakeChanNegative, UnlockOfUnlockedMutex, RUnlockOfUnlocked,
	UnlockOfUnlockedRWMutex, MutexRelockDeadlock, NegativeWaitGroupCounter, WaitGroupReuse,
	WaitGroupGo, RWMutexWriterPreference, RWMutexRecursiveRLockDeadlock, TimerStopBeforeFire,
	TimerStopAfterRecv, TimerResetActive, TimerStopAfterFireNotReceived, ContextCancelChild,
	ContextDeadline, ContextCancelTwice, CondBroadcastWakesAll, AtomicIntWrap, AtomicCASSwap,
	AtomicValueStoreNil, AtomicValueInconsistent, NewTickerNonPositive, OnceRunsOnce)

func CloseNilChan() { var ch chan int; close(ch) }

func CloseClosedChan() { ch := make(chan int); close(ch); close(ch) }

func SendOnClosedChan() { ch := make(chan int, 1); close(ch); ch <- 1 }

// A sender blocked on a full channel panics when it is closed.
func SendOnClosedWhileBlocked() {
	ch := make(chan int)
	go func() { time.Sleep(10 * time.Millisecond); close(ch) }()
	ch <- 1
}

func RecvOnClosedChan() {
	ch := make(chan int)
	close(ch)
	v, ok := <-ch
	result("%d %v", v, ok)
}

func RecvClosedAfterDrain() {
	ch := make(chan int, 2)
	ch <- 7
	close(ch)
	v1, ok1 := <-ch
	v2, ok2 := <-ch
	result("%d %v %d %v", v1, ok1, v2, ok2)
}

func SendNilChanBlocks() { var ch chan int; ch <- 1 }

func RecvNilChanBlocks() { var ch chan int; <-ch }

func SelectNoCases() { select {} }

func SelectDefaultNothingReady() {
	ch := make(chan int)
	select {
	case <-ch:
		result("recv")
	default:
		result("default")
	}
}

func SelectDefaultReady() {
	ch := make(chan int, 1)
	ch <- 1
	select {
	case v := <-ch:
		result("recv %d", v)
	default:
		result("default")
	}
}

func SelectSendOnClosed() {
	ch := make(chan int, 1)
	close(ch)
	select {
	case ch <- 1:
	default:
	}
}

func SelectNilCasesOnly() {
	var a, b chan int
	select {
	case <-a:
	case b <- 1:
	}
}

func RangeOverClosedChan() {
	ch := make(chan int, 3)
	ch <- 1
	ch <- 2
	close(ch)
	s := 0
	for v := range ch {
		s = s*10 + v
	}
	result("%d", s)
}

func LenCap() {
	ch := make(chan int, 3)
	ch <- 1
	ch <- 2
	m := map[string]int{"a": 1}
	var nilch chan int
	result("%d %d %d %d %d", len(ch), cap(ch), len(m), len(nilch), cap(nilch))
}

func MakeChanNegative() {
	n := -1
	_ = make(chan int, n)
}

func UnlockOfUnlockedMutex() { var mu sync.Mutex; mu.Unlock() }

func RUnlockOfUnlocked() { var rw sync.RWMutex; rw.RUnlock() }

func UnlockOfUnlockedRWMutex() { var rw sync.RWMutex; rw.Unlock() }

func MutexRelockDeadlock() { var mu sync.Mutex; mu.Lock(); mu.Lock() }

func NegativeWaitGroupCounter() { var wg sync.WaitGroup; wg.Add(1); wg.Done(); wg.Done() }

// Add after the counter reached zero, before the released Wait returned.
func WaitGroupReuse() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { wg.Done(); wg.Add(1); wg.Done() }()
	wg.Wait()
	time.Sleep(5 * time.Millisecond)
}

func WaitGroupGo() {
	var wg sync.WaitGroup
	var n atomic.Int32
	wg.Go(func() { n.Add(1) })
	wg.Go(func() { n.Add(1) })
	wg.Wait()
	result("%d", n.Load())
}

// A writer waiting for a reader blocks later readers (writer preference).
func RWMutexWriterPreference() {
	var rw sync.RWMutex
	var mu sync.Mutex
	order := ""
	log := func(s string) { mu.Lock(); order += s; mu.Unlock() }
	var wg sync.WaitGroup
	wg.Add(2)
	rw.RLock()
	go func() { rw.Lock(); log("w"); rw.Unlock(); wg.Done() }()
	time.Sleep(10 * time.Millisecond)
	go func() { rw.RLock(); log("r"); rw.RUnlock(); wg.Done() }()
	time.Sleep(10 * time.Millisecond)
	log("u")
	rw.RUnlock()
	wg.Wait()
	result("%s", order)
}

func RWMutexRecursiveRLockDeadlock() {
	var rw sync.RWMutex
	rw.RLock()
	go func() { rw.Lock(); rw.Unlock() }()
	time.Sleep(10 * time.Millisecond)
	rw.RLock()
	rw.RUnlock()
	rw.RUnlock()
}

func TimerStopBeforeFire() {
	t := time.NewTimer(time.Hour)
	a := t.Stop()
	b := t.Stop()
	result("%v %v", a, b)
}

func TimerStopAfterRecv() {
	t := time.NewTimer(time.Millisecond)
	<-t.C
	a := t.Stop()
	b := t.Reset(time.Millisecond)
	<-t.C
	result("%v %v", a, b)
}

func TimerResetActive() {
	t := time.NewTimer(time.Hour)
	a := t.Reset(time.Millisecond)
	<-t.C
	result("%v", a)
}

// Go 1.23 timers: an expired timer's value not yet received is still "active" for Stop,
// and Stop discards it. gosim models Go before 1.23 (docs/RUNTIME.md#differences).
func TimerStopAfterFireNotReceived() {
	t := time.NewTimer(time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	a := t.Stop()
	select {
	case <-t.C:
		result("%v stale", a)
	default:
		result("%v none", a)
	}
}

func ContextCancelChild() {
	parent, cancel := context.WithCancel(context.Background())
	child, cancelChild := context.WithCancel(parent)
	defer cancelChild()
	done := make(chan string)
	go func() { <-child.Done(); done <- child.Err().Error() }()
	cancel()
	<-parent.Done()
	result("%v|%s", parent.Err(), <-done)
}

func ContextDeadline() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	<-ctx.Done()
	result("%v %v", ctx.Err(), errors.Is(ctx.Err(), context.DeadlineExceeded))
}

func ContextCancelTwice() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cancel()
	<-ctx.Done()
	result("%v", ctx.Err())
}

func CondBroadcastWakesAll() {
	var mu sync.Mutex
	c := sync.NewCond(&mu)
	ready := false
	var wg sync.WaitGroup
	n := 0
	wg.Add(2)
	for i := 0; i < 2; i++ {
		go func() {
			mu.Lock()
			for !ready {
				c.Wait()
			}
			n++
			mu.Unlock()
			wg.Done()
		}()
	}
	mu.Lock()
	ready = true
	c.Broadcast()
	mu.Unlock()
	wg.Wait()
	result("%d", n)
}

func AtomicIntWrap() {
	var i atomic.Int32
	i.Store(math.MaxInt32)
	a := i.Add(1)
	var u atomic.Uint32
	b := u.Add(^uint32(0))
	var j atomic.Int64
	j.Store(math.MaxInt64)
	c := j.Add(1)
	result("%d %d %d", a, b, c)
}

func AtomicCASSwap() {
	var i atomic.Int64
	a := i.CompareAndSwap(0, 5)
	b := i.CompareAndSwap(0, 6)
	c := i.Swap(9)
	var f atomic.Bool
	d := f.Swap(true)
	result("%v %v %d %v %d %v", a, b, c, d, i.Load(), f.Load())
}

func AtomicValueStoreNil() { var v atomic.Value; v.Store(nil) }

func AtomicValueInconsistent() { var v atomic.Value; v.Store(1); v.Store("x") }

func NewTickerNonPositive() { time.NewTicker(0) }

func OnceRunsOnce() {
	var once sync.Once
	n := 0
	once.Do(func() { n++ })
	once.Do(func() { n++ })
	result("%d", n)
}
