//go:build fixed

package hc08

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// The scenario's flags (the Python case's: two watch streams of one watch each, one key, one put).
var (
	watchStreams          = 2
	watchWatchesPerStream = 1
	watchedKeyTotal       = 1
	watchPutTotal         = 1
)

var wg sync.WaitGroup // root.go's

type watchedKeys struct {
	watched     []string
	numWatchers map[string]int

	watches []WatchChan

	// ctx to control all watches
	ctx    context.Context
	cancel context.CancelFunc
}

// Clients and their connection counts stubbed.
// upstream: etcd-io/etcd tools/benchmark/cmd/watch.go:91-108 @d5b917daad959ee7959753851627394c00c8bf15
func watchFunc() {
	wk := newWatchedKeys()
	benchMakeWatches(wk)
	benchPutWatches(wk)
}

// upstream: etcd-io/etcd tools/benchmark/cmd/watch.go:110-162 @d5b917daad959ee7959753851627394c00c8bf15
func benchMakeWatches(wk *watchedKeys) {
	streams := make([]Watcher, watchStreams)

	keyc := make(chan string, watchStreams)

	r := NewReportRate("%4.4f")
	rch := r.Results()

	wg.Add(len(streams) + 1)
	wc := make(chan []WatchChan, len(streams))
	for _, s := range streams {
		go func(s Watcher) {
			defer wg.Done()
			var ws []WatchChan
			for i := 0; i < watchWatchesPerStream; i++ {
				k := <-keyc
				st := time.Now()
				wch := s.Watch(wk.ctx, k)
				rch <- Result{Start: st, End: time.Now()}
				ws = append(ws, wch)
				bar.Increment()
			}
			wc <- ws
		}(s)
	}
	go func() {
		defer func() {
			close(keyc)
			wg.Done()
		}()
		for i := 0; i < watchStreams*watchWatchesPerStream; i++ {
			key := wk.watched[i%len(wk.watched)]
			keyc <- key
			wk.numWatchers[key]++
		}
	}()

	rc := r.Run()
	wg.Wait()
	close(r.Results())
	<-rc

	for i := 0; i < len(streams); i++ {
		wk.watches = append(wk.watches, (<-wc)...)
	}
}

// upstream: etcd-io/etcd tools/benchmark/cmd/watch.go:164-182 @d5b917daad959ee7959753851627394c00c8bf15
func newWatchedKeys() *watchedKeys {
	watched := make([]string, watchedKeyTotal)
	for i := range watched {
		watched[i] = "key"
	}
	ctx, cancel := context.WithCancel(context.TODO())
	return &watchedKeys{
		watched:     watched,
		numWatchers: make(map[string]int),
		ctx:         ctx,
		cancel:      cancel,
	}
}

// The rate limiter stubbed (--put-rate 0: no limit).
// upstream: etcd-io/etcd tools/benchmark/cmd/watch.go:184-234 @d5b917daad959ee7959753851627394c00c8bf15
func benchPutWatches(wk *watchedKeys) {
	eventsTotal := 0
	for i := 0; i < watchPutTotal; i++ {
		eventsTotal += wk.numWatchers[wk.watched[i%len(wk.watched)]]
	}

	r := NewReportRate("%4.4f")

	wg.Add(len(wk.watches))
	nrRxed := int32(eventsTotal)
	for _, w := range wk.watches {
		go func(wc WatchChan) {
			defer wg.Done()
			recvWatchChan(wc, r.Results(), &nrRxed)
			wk.cancel()
		}(w)
	}

	putreqc := make(chan string, 1)
	go func() {
		defer close(putreqc)
		for i := 0; i < watchPutTotal; i++ {
			putreqc <- wk.watched[i%(len(wk.watched))]
		}
	}()

	go func() {
		for op := range putreqc {
			Put(op)
		}
	}()

	rc := r.Run()
	wg.Wait()
	close(r.Results())
	<-rc
}

// upstream: etcd-io/etcd tools/benchmark/cmd/watch.go:236-247 @d5b917daad959ee7959753851627394c00c8bf15
func recvWatchChan(wch WatchChan, results chan<- Result, nrRxed *int32) {
	for r := range wch {
		st := time.Now()
		for range r.Events {
			results <- Result{Start: st, End: time.Now()}
			bar.Increment()
			if atomic.AddInt32(nrRxed, -1) <= 0 {
				return
			}
		}
	}
}
