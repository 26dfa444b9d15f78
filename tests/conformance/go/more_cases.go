package main

// More cases: the edges of context, timers and select under -race (mode "race"), and Go's
// runtime errors (mode "plain").

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

var _ = register(ContextCancelOrdersDone, ContextErrOrders, AfterFuncOrders, AfterFuncArmedBeforeWrite,
	TimerResetOrdersTick, SelectSendRacesClose, MapReadRacesWrite, MapRangeAfterWriteOrdered,
	UnlockByAnotherGoroutine, CloseWakesEveryReceiver, NilMapWrite, DivideByZero, NilFuncCall,
	BlockedWithTickerRunning)

func ContextCancelOrdersDone() {
	ctx, cancel := context.WithCancel(context.Background())
	x := 0
	go func() { x = 1; cancel() }()
	<-ctx.Done()
	result("%d", x)
}

func ContextErrOrders() {
	ctx, cancel := context.WithCancel(context.Background())
	x := 0
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { x = 1; cancel(); wg.Done() }()
	if ctx.Err() != nil {
		_ = x
		result("seen")
	} else {
		result("unseen")
	}
	wg.Wait()
}

func AfterFuncOrders() {
	x := 0
	done := make(chan bool)
	x = 1
	time.AfterFunc(time.Millisecond, func() { _ = x; done <- true })
	<-done
}

func AfterFuncArmedBeforeWrite() {
	x := 0
	done := make(chan bool)
	time.AfterFunc(5*time.Millisecond, func() { _ = x; done <- true })
	x = 1
	<-done
}

// Reset happens before the receive of the tick it arms.
func TimerResetOrdersTick() {
	t := time.NewTimer(time.Hour)
	x := 0
	done := make(chan bool)
	go func() { <-t.C; _ = x; done <- true }()
	go func() { x = 1; t.Reset(time.Millisecond) }()
	<-done
}

func SelectSendRacesClose() {
	ch := make(chan int, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		select {
		case ch <- 1:
		default:
		}
		wg.Done()
	}()
	time.Sleep(10 * time.Millisecond)
	close(ch)
	wg.Wait()
}

func MapReadRacesWrite() {
	m := map[int]int{1: 1}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { m[1] = 2; wg.Done() }()
	_ = m[1]
	wg.Wait()
}

func MapRangeAfterWriteOrdered() {
	m := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { mu.Lock(); m[1] = 2; mu.Unlock(); wg.Done() }()
	mu.Lock()
	s := 0
	for _, v := range m {
		s += v
	}
	mu.Unlock()
	wg.Wait()
	result("%d", s)
}

func UnlockByAnotherGoroutine() {
	var mu sync.Mutex
	mu.Lock()
	done := make(chan bool)
	go func() { mu.Unlock(); done <- true }()
	<-done
	mu.Lock()
	result("relocked")
}

func CloseWakesEveryReceiver() {
	ch := make(chan int)
	res := make(chan bool, 2)
	for i := 0; i < 2; i++ {
		go func() { _, ok := <-ch; res <- ok }()
	}
	time.Sleep(5 * time.Millisecond)
	close(ch)
	result("%v %v", <-res, <-res)
}

func NilMapWrite() {
	var m map[string]int
	m["a"] = 1
}

func DivideByZero() {
	a, b := 1, 0
	_ = a / b
}

func NilFuncCall() {
	var f func()
	f()
}

// Go's deadlock check ignores a goroutine blocked while a timer can still fire: this hangs.
func BlockedWithTickerRunning() {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	var ch chan int
	<-ch
}

var _ = register(WaitGroupAddUnorderedWithWait)

// sync/waitgroup.go: an Add from zero reads wg.sema, the first Wait that blocks writes it; an
// Add not ordered before that Wait is a race (a WaitGroup reused or misused).
func WaitGroupAddUnorderedWithWait() {
	var wg sync.WaitGroup
	go func() { wg.Add(1); time.Sleep(10 * time.Millisecond); wg.Done() }()
	time.Sleep(5 * time.Millisecond)
	wg.Wait()
	time.Sleep(15 * time.Millisecond)
}

var _ = register(MutexTryLock, RLockerLocks, TickerResetNonPositive, AtomicValueSwapNil,
	AtomicValueCASNil, AtomicValueCASMixedOldNew, AtomicValueCASOtherType, ContextChildDoneAfterParentErr)

func MutexTryLock() {
	var mu sync.Mutex
	a := mu.TryLock()
	b := mu.TryLock()
	mu.Unlock()
	c := mu.TryLock()
	result("%v %v %v", a, b, c)
}

// RLocker's Lock is RLock: a second reader gets in while the first holds it; a writer's
// TryLock does not.
func RLockerLocks() {
	var rw sync.RWMutex
	l := rw.RLocker()
	l.Lock()
	a := rw.TryRLock()
	b := rw.TryLock()
	rw.RUnlock()
	l.Unlock()
	c := rw.TryLock()
	result("%v %v %v", a, b, c)
}

func TickerResetNonPositive() { t := time.NewTicker(time.Hour); t.Reset(0) }

func AtomicValueSwapNil() { var v atomic.Value; v.Swap(nil) }

func AtomicValueCASNil() { var v atomic.Value; v.CompareAndSwap(nil, nil) }

func AtomicValueCASMixedOldNew() { var v atomic.Value; v.CompareAndSwap(1, "x") }

func AtomicValueCASOtherType() { var v atomic.Value; v.Store(1); v.CompareAndSwap("a", "b") }

// A child's Done is closed after its parent's Err is set (cancelCtx.cancel: the parent first).
func ContextChildDoneAfterParentErr() {
	parent, cancel := context.WithCancel(context.Background())
	child, cancelChild := context.WithCancel(parent)
	defer cancelChild()
	res := make(chan string)
	go func() { <-child.Done(); res <- fmt.Sprint(parent.Err()) }()
	cancel()
	result("%s", <-res)
}

var _ = register(IndexOutOfRange, NegativeIndex)

func IndexOutOfRange() {
	s := []int{1, 2, 3}
	i := 5
	_ = s[i]
}

func NegativeIndex() {
	s := []int{1, 2, 3}
	i := -5
	_ = s[i]
}

var _ = register(SelectBothReady)

// Go picks uniformly among ready cases: both are seen over a few processes.
func SelectBothReady() {
	a, b := make(chan int, 1), make(chan int, 1)
	a <- 1
	b <- 2
	select {
	case v := <-a:
		result("a%d", v)
	case v := <-b:
		result("b%d", v)
	}
}
