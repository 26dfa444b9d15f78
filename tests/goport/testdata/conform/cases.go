package conform

// Cases copied verbatim from tests/conformance/go/plain_cases.go (the conformance suite).

import (
	"sync"
	"time"
)

func CloseClosedChan() { ch := make(chan int); close(ch); close(ch) }
func SendOnClosedWhileBlocked() {
	ch := make(chan int)
	go func() { time.Sleep(10 * time.Millisecond); close(ch) }()
	ch <- 1
}
func RecvClosedAfterDrain() {
	ch := make(chan int, 2)
	ch <- 7
	close(ch)
	v1, ok1 := <-ch
	v2, ok2 := <-ch
	result("%d %v %d %v", v1, ok1, v2, ok2)
}
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
