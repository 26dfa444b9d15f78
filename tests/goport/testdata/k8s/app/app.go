// Package k8sapp calls apimachinery's wait and client-go's workqueue the way controllers do; its
// tests check what holds in every Go execution (call counts the code fixes, errors, Backoff
// steps) and which accesses race under go test -race (the happens-before edges the packages
// give: the queue's lock, ShutDownWithDrain waiting for Done, Until returning after f).
package k8sapp

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/workqueue"
)

var payload int

// handOff: the producer writes payload, then adds the key; the worker reads payload after Get:
// ordered by the queue's lock, no race.
func handOff() int {
	payload = 0
	q := workqueue.New()
	var got int
	done := make(chan struct{})
	go func() {
		defer close(done)
		key, shutdown := q.Get()
		if shutdown {
			return
		}
		got = payload
		q.Done(key)
	}()
	payload = 7
	q.Add("key")
	<-done
	return got
}

// drain: a worker writes payload while processing; main reads it after ShutDownWithDrain,
// which waits for Done: no race.
func drain() int {
	payload = 0
	q := workqueue.New()
	q.Add("a")
	taken := make(chan struct{})
	go func() {
		item, _ := q.Get()
		close(taken)
		payload = 1
		q.Done(item)
	}()
	<-taken
	q.ShutDownWithDrain()
	return payload
}

// queueRules: dedup while queued, re-queue when added while processing, shutdown once empty.
func queueRules() string {
	q := workqueue.NewNamed("rules")
	out := ""
	q.Add("a")
	q.Add("a")
	q.Add("b")
	if q.Len() == 2 {
		out += "dedup "
	}
	item, _ := q.Get()
	q.Add(item)
	if q.Len() == 1 {
		out += "processing "
	}
	q.Done(item)
	if q.Len() == 2 {
		out += "requeued "
	}
	q.ShutDown()
	q.Add("c")
	first, s1 := q.Get()
	second, s2 := q.Get()
	_, s3 := q.Get()
	if first == "b" && second == "a" && !s1 && !s2 && s3 && q.ShuttingDown() {
		out += "drained"
	}
	return out
}

// untilCounts runs f with wait.Until until stop closes and reads the counter f increments:
// after Until returned (ordered: no race), or before (f's first increment, made after it
// signalled that it ran, is unordered with the read: a race in every execution).
func untilCounts(waitForIt bool) int {
	stop := make(chan struct{})
	returned := make(chan struct{})
	ran := make(chan struct{}, 1)
	n := 0
	go func() {
		wait.Until(func() {
			select {
			case ran <- struct{}{}:
			default:
			}
			n++
		}, 10*time.Millisecond, stop)
		close(returned)
	}()
	<-ran
	time.Sleep(25 * time.Millisecond)
	close(stop)
	if waitForIt {
		<-returned
		return n
	}
	got := n
	<-returned
	return got
}

// untilCtx: UntilWithContext and NonSlidingUntil stop when cancelled, after f ran.
func untilCtx() (int, int) {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	a, b := 0, 0
	ranA, ranB := make(chan struct{}, 1), make(chan struct{}, 1)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		wait.UntilWithContext(ctx, func(context.Context) {
			mu.Lock()
			a++
			mu.Unlock()
			select {
			case ranA <- struct{}{}:
			default:
			}
		}, 10*time.Millisecond)
	}()
	go func() {
		defer wg.Done()
		wait.NonSlidingUntil(func() {
			mu.Lock()
			b++
			mu.Unlock()
			select {
			case ranB <- struct{}{}:
			default:
			}
		}, 10*time.Millisecond, stop)
	}()
	<-ranA
	<-ranB
	cancel()
	close(stop)
	wg.Wait()
	return a, b
}

// polls: PollUntilContextCancel calls the condition until it is done; a cancelled context
// stops it before (immediate false) or after (immediate true) one call.
func polls() string {
	out := ""
	n := 0
	err := wait.PollUntilContextCancel(context.Background(), 10*time.Millisecond, false, func(context.Context) (bool, error) {
		n++
		return n == 3, nil
	})
	if err == nil && n == 3 {
		out += "done3 "
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	err = wait.PollUntilContextCancel(ctx, 10*time.Millisecond, false, func(context.Context) (bool, error) { calls++; return false, nil })
	if err == context.Canceled && calls == 0 {
		out += "cancelled "
	}
	err = wait.PollUntilContextCancel(ctx, 10*time.Millisecond, true, func(context.Context) (bool, error) { calls++; return false, nil })
	if err == context.Canceled && calls == 1 {
		out += "immediate "
	}
	m := 0
	err = wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 35*time.Millisecond, true, func(context.Context) (bool, error) {
		m++
		return false, nil
	})
	if err == context.DeadlineExceeded && m >= 1 && m <= 4 {
		out += "timeout "
	}
	k := 0
	stop := make(chan struct{})
	err = wait.PollImmediateUntil(5*time.Millisecond, func() (bool, error) { k++; return k == 3, nil }, stop)
	if err == nil && k == 3 {
		out += "immediateUntil "
	}
	close(stop)
	err = wait.PollImmediateUntil(5*time.Millisecond, func() (bool, error) { return false, nil }, stop)
	if err == wait.ErrWaitTimeout && err.Error() == "timed out waiting for the condition" {
		out += "stopped"
	}
	return out
}

// backoffs: Backoff.Step's sequence (factor, cap) and ExponentialBackoff's attempts.
func backoffs() string {
	out := ""
	b := wait.Backoff{Duration: 10 * time.Millisecond, Factor: 2, Steps: 4, Cap: 50 * time.Millisecond}
	var steps []time.Duration
	for i := 0; i < 6; i++ {
		steps = append(steps, b.Step())
	}
	if steps[0] == 10*time.Millisecond && steps[1] == 20*time.Millisecond && steps[2] == 40*time.Millisecond &&
		steps[3] == 50*time.Millisecond && steps[5] == 50*time.Millisecond && b.Steps == 0 {
		out += "steps "
	}
	tries := 0
	err := wait.ExponentialBackoff(wait.Backoff{Duration: time.Millisecond, Factor: 1.5, Steps: 3}, func() (bool, error) {
		tries++
		return false, nil
	})
	if err == wait.ErrWaitTimeout && tries == 3 {
		out += "exhausted "
	}
	j := wait.Jitter(100*time.Millisecond, 0.5)
	if j >= 100*time.Millisecond && j < 150*time.Millisecond {
		out += "jitter"
	}
	return out
}

// forever: wait.Forever runs f until the process ends; the test waits for one call.
func forever() {
	called := make(chan struct{}, 1)
	go wait.Forever(func() {
		select {
		case called <- struct{}{}:
		default:
		}
	}, 10*time.Millisecond)
	<-called
}
