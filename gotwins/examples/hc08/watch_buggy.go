//go:build !fixed

package hc08

import (
	"context"
	"sync/atomic"
	"time"
)

// The scenario's flags (the Python case's: two watch streams, one key, one put).
var (
	watchTotalStreams = 2
	watchTotal        = 2
	watchedKeyTotal   = 1
	watchPutTotal     = 1
	watchPutRate      = 1000

	eventsTotal int

	nrWatchCompleted       int32
	nrRecvCompleted        int32
	watchCompletedNotifier chan struct{}
	recvCompletedNotifier  chan struct{}
)

// Keys, clients and the progress bars' formatting stubbed.
// upstream: etcd-io/etcd tools/benchmark/cmd/watch.go:86-181 @56841bbc5f7e183ebd2f7529d5d5edcffb9945a3
func watchFunc() {
	watched := make([]string, watchedKeyTotal)
	numWatchers := make(map[string]int)
	for i := range watched {
		watched[i] = "key"
	}

	requests := make(chan string, 1)

	streams := make([]Watcher, watchTotalStreams)

	atomic.StoreInt32(&nrWatchCompleted, int32(0))
	watchCompletedNotifier = make(chan struct{})

	r := NewReportRate("%4.4f")
	for i := range streams {
		go doWatch(streams[i], requests, r.Results())
	}

	go func() {
		for i := 0; i < watchTotal; i++ {
			key := watched[i%len(watched)]
			requests <- key
			numWatchers[key]++
		}
		close(requests)
	}()

	rc := r.Run()
	<-watchCompletedNotifier
	close(r.Results())
	<-rc

	// put phase
	eventsTotal = 0
	for i := 0; i < watchPutTotal; i++ {
		eventsTotal += numWatchers[watched[i%len(watched)]]
	}

	atomic.StoreInt32(&nrRecvCompleted, 0)
	recvCompletedNotifier = make(chan struct{})
	putreqc := make(chan string)

	r = NewReportRate("%4.4f")
	for i := 0; i < watchPutTotal; i++ {
		go func() {
			for op := range putreqc {
				Put(op)
			}
		}()
	}

	go func() {
		for i := 0; i < watchPutTotal; i++ {
			putreqc <- watched[i%(len(watched))]
			time.Sleep(time.Second / time.Duration(watchPutRate))
		}
		close(putreqc)
	}()

	rc = r.Run()
	<-recvCompletedNotifier
	close(r.Results())
	<-rc
}

// upstream: etcd-io/etcd tools/benchmark/cmd/watch.go:183-195 @56841bbc5f7e183ebd2f7529d5d5edcffb9945a3
func doWatch(stream Watcher, requests <-chan string, results chan<- Result) {
	for r := range requests {
		st := time.Now()
		wch := stream.Watch(context.TODO(), r)
		results <- Result{Start: st, End: time.Now()}
		bar.Increment()
		go recvWatchChan(wch, results)
	}
	atomic.AddInt32(&nrWatchCompleted, 1)
	if atomic.LoadInt32(&nrWatchCompleted) == int32(watchTotalStreams) {
		watchCompletedNotifier <- struct{}{}
	}
}

// upstream: etcd-io/etcd tools/benchmark/cmd/watch.go:197-211 @56841bbc5f7e183ebd2f7529d5d5edcffb9945a3
func recvWatchChan(wch WatchChan, results chan<- Result) {
	for r := range wch {
		st := time.Now()
		for range r.Events {
			results <- Result{Start: st, End: time.Now()}
			bar.Increment()
			atomic.AddInt32(&nrRecvCompleted, 1)
		}

		if atomic.LoadInt32(&nrRecvCompleted) == int32(eventsTotal) {
			recvCompletedNotifier <- struct{}{}
			break
		}
	}
}
