package main

// Cases run under `go build -race` (mode "race" on the Python side): does -race report?

import (
	"sync"
	"sync/atomic"
	"time"
)

var _ = register(LenMapRacesWrite, LenMapAfterJoin, CondSignalWithoutL, CondSignalUnderL,
	BufferedSendRecvSend, ZeroSizeChanTwoSends, IntChanTwoSends, ZeroSizeCloseOverwritesSends,
	SendRacesClose, CloseBeforeRecvOrders, BufferedSendBeforeRecv, KthRecvBeforeKPlusCthSend,
	MutexOrders, MutexMissing, WaitGroupOrders, AtomicStoreLoadOrders, RLockOrdersNoReaders,
	RWMutexWriterOrders, OnceOrders, ChanLenNoRace, UnbufferedRecvBeforeSendCompletes)

// len(m) reads the map header's count word, the word mapassign's racewritepc names.
func LenMapRacesWrite() {
	m := map[int]int{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { m[1] = 1; wg.Done() }()
	_ = len(m)
	wg.Wait()
}

func LenMapAfterJoin() {
	m := map[int]int{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { m[1] = 1; wg.Done() }()
	wg.Wait()
	result("%d", len(m))
}

// The signaller does not hold L: nothing orders its write before the waiter's read
// (notifyList has no race annotations). A signal before Wait is lost: a hang.
func CondSignalWithoutL() {
	var mu sync.Mutex
	c := sync.NewCond(&mu)
	x := 0
	mu.Lock()
	go func() { x = 1; time.Sleep(5 * time.Millisecond); c.Signal() }()
	c.Wait()
	result("%d", x)
	mu.Unlock()
}

func CondSignalUnderL() {
	var mu sync.Mutex
	c := sync.NewCond(&mu)
	x := 0
	mu.Lock()
	go func() { mu.Lock(); x = 1; c.Signal(); mu.Unlock() }()
	c.Wait()
	result("%d", x)
	mu.Unlock()
}

// Go's racereleaseacquire leaves the receiver's pre-acquire clock in the slot: the second
// sender does not inherit the first sender's clock.
func BufferedSendRecvSend() {
	ch := make(chan int, 1)
	x := 0
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { x = 1; ch <- 1; wg.Done() }()
	go func() { ch <- 2; _ = x; wg.Done() }()
	<-ch
	<-ch
	wg.Wait()
}

// Zero-size elements: one sync object for the whole buffer (racenotify, c.elemsize == 0),
// so the second send is ordered after the first.
func ZeroSizeChanTwoSends() {
	ch := make(chan struct{}, 2)
	x := 0
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { x = 1; ch <- struct{}{}; wg.Done() }()
	go func() { time.Sleep(10 * time.Millisecond); ch <- struct{}{}; _ = x; wg.Done() }()
	wg.Wait()
}

func IntChanTwoSends() {
	ch := make(chan int, 2)
	x := 0
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { x = 1; ch <- 1; wg.Done() }()
	go func() { time.Sleep(10 * time.Millisecond); ch <- 2; _ = x; wg.Done() }()
	wg.Wait()
}

// Zero-size elements: close stores the closer's clock into the same sync object the
// buffered send accumulated into, so the receive no longer sees the sender.
func ZeroSizeCloseOverwritesSends() {
	ch := make(chan struct{}, 1)
	x := 0
	go func() { x = 1; ch <- struct{}{} }()
	go func() { time.Sleep(10 * time.Millisecond); close(ch) }()
	time.Sleep(20 * time.Millisecond)
	<-ch
	_ = x
}

// chansend reads the channel (racereadpc), closechan writes it (racewritepc).
func SendRacesClose() {
	ch := make(chan int, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { ch <- 1; wg.Done() }()
	time.Sleep(10 * time.Millisecond)
	close(ch)
	wg.Wait()
}

func CloseBeforeRecvOrders() {
	ch := make(chan int)
	x := 0
	go func() { x = 1; close(ch) }()
	<-ch
	result("%d", x)
}

func BufferedSendBeforeRecv() {
	ch := make(chan int, 1)
	x := 0
	go func() { x = 1; ch <- 1 }()
	<-ch
	result("%d", x)
}

// The 1st receive on a channel of capacity 1 happens before the 2nd send completes.
func KthRecvBeforeKPlusCthSend() {
	ch := make(chan int, 1)
	x := 0
	done := make(chan bool)
	ch <- 0
	go func() { x = 1; <-ch; <-ch; done <- true }()
	ch <- 1
	_ = x
	<-done
}

func UnbufferedRecvBeforeSendCompletes() {
	ch := make(chan int)
	x := 0
	done := make(chan bool)
	go func() { x = 1; <-ch; done <- true }()
	ch <- 1
	_ = x
	<-done
}

func MutexOrders() {
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	wg.Add(2)
	for i := 0; i < 2; i++ {
		go func() { mu.Lock(); n++; mu.Unlock(); wg.Done() }()
	}
	wg.Wait()
	result("%d", n)
}

func MutexMissing() {
	n := 0
	var wg sync.WaitGroup
	wg.Add(2)
	for i := 0; i < 2; i++ {
		go func() { n++; wg.Done() }()
	}
	wg.Wait()
}

func WaitGroupOrders() {
	x := 0
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { x = 1; wg.Done() }()
	wg.Wait()
	result("%d", x)
}

// A Load that sees the Store is ordered after it; one that does not, reads nothing.
func AtomicStoreLoadOrders() {
	var flag atomic.Int32
	x := 0
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { x = 1; flag.Store(1); wg.Done() }()
	if flag.Load() == 1 {
		_ = x
		result("seen")
	} else {
		result("unseen")
	}
	wg.Wait()
}

// Readers holding the read lock are not ordered with each other.
func RLockOrdersNoReaders() {
	var rw sync.RWMutex
	n := 0
	var wg sync.WaitGroup
	wg.Add(2)
	for i := 0; i < 2; i++ {
		go func() { rw.RLock(); n++; rw.RUnlock(); wg.Done() }()
	}
	wg.Wait()
}

func RWMutexWriterOrders() {
	var rw sync.RWMutex
	n := 0
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { rw.Lock(); n++; rw.Unlock(); wg.Done() }()
	go func() { rw.RLock(); _ = n; rw.RUnlock(); wg.Done() }()
	wg.Wait()
	result("%d", n)
}

func OnceOrders() {
	var once sync.Once
	x := 0
	var wg sync.WaitGroup
	wg.Add(2)
	for i := 0; i < 2; i++ {
		go func() { once.Do(func() { x = 1 }); _ = x; wg.Done() }()
	}
	wg.Wait()
	result("%d", x)
}

// len(ch) reads qcount, which -race does not watch (chan.go: raceaddr avoids it).
func ChanLenNoRace() {
	ch := make(chan int, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { ch <- 1; wg.Done() }()
	n := len(ch)
	wg.Wait()
	result("%d", n)
}

var _ = register(GoStatementOrders, WriteAfterGoStatement)

func GoStatementOrders() {
	x := 0
	done := make(chan bool)
	x = 1
	go func() { _ = x; done <- true }()
	<-done
}

func WriteAfterGoStatement() {
	x := 0
	done := make(chan bool)
	go func() { _ = x; done <- true }()
	x = 1
	<-done
}
