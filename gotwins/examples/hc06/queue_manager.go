// Package hc06 is the Go twin of fuzzfarm/examples/hc06_reshard_close.py (HC-06,
// prometheus/prometheus issue #5451, fix PR #5460 commit ef19ede1): QueueManager.Stop races a
// reshard and closes the shards' softShutdown channel twice.
//
// Kept: Start, updateShardsLoop, reshardLoop, calculateDesiredShards' select with default,
// shards.start/stop/runShard with their RWMutex, channels, atomic running count and contexts.
// Stubbed: the rate arithmetic (every tick asks for one more shard), the WAL watcher and
// enqueue (each shard starts holding one sample, which its last flush sends), metrics, logging,
// and the remote write (a wait of sendDuration, cut short by the hard-shutdown context). Time
// is scaled from the Python scenario's seconds to milliseconds.
package hc06

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

var (
	shardUpdateDuration = 10 * time.Millisecond
	sendDuration        = 2 * time.Millisecond // a remote write to a slow endpoint
)

// TimeSeries is prompb.TimeSeries.
type TimeSeries struct{}

// QueueManagerConfig keeps the fields used here.
type QueueManagerConfig struct {
	Capacity          int
	MaxSamplesPerSend int
	BatchSendDeadline time.Duration
}

// QueueManager keeps what Start, Stop and the two loops use.
type QueueManager struct {
	flushDeadline time.Duration
	cfg           QueueManagerConfig
	numShards     int
	reshardChan   chan int
	quit          chan struct{}
	wg            sync.WaitGroup
	shards        *shards
}

// upstream: prometheus/prometheus storage/remote/queue_manager.go:195-244 @1a9cdbd024fea05a1888c3164058087476cfdc3b
func NewQueueManager(cfg QueueManagerConfig, flushDeadline time.Duration) *QueueManager {
	t := &QueueManager{
		flushDeadline: flushDeadline,
		cfg:           cfg,
		numShards:     1,
		reshardChan:   make(chan int),
		quit:          make(chan struct{}),
	}
	t.shards = t.newShards()
	return t
}

// upstream: prometheus/prometheus storage/remote/queue_manager.go:309-316 @1a9cdbd024fea05a1888c3164058087476cfdc3b
func (t *QueueManager) Start() {
	t.shards.start(t.numShards)

	t.wg.Add(2)
	go t.updateShardsLoop()
	go t.reshardLoop()
}

// upstream: prometheus/prometheus storage/remote/queue_manager.go:423-436 @1a9cdbd024fea05a1888c3164058087476cfdc3b
func (t *QueueManager) updateShardsLoop() {
	defer t.wg.Done()

	ticker := time.NewTicker(shardUpdateDuration)
	defer ticker.Stop()
	for {
		select {
		case <-ticker.C:
			t.calculateDesiredShards()
		case <-t.quit:
			return
		}
	}
}

// The rates are stubbed: the desired count is always one more shard.
// upstream: prometheus/prometheus storage/remote/queue_manager.go:438-509 @1a9cdbd024fea05a1888c3164058087476cfdc3b
func (t *QueueManager) calculateDesiredShards() {
	numShards := t.numShards + 1
	if numShards == t.numShards {
		return
	}

	select {
	case t.reshardChan <- numShards:
		t.numShards = numShards
	default:
	}
}

// upstream: prometheus/prometheus storage/remote/queue_manager.go:511-526 @1a9cdbd024fea05a1888c3164058087476cfdc3b
func (t *QueueManager) reshardLoop() {
	defer t.wg.Done()

	for {
		select {
		case numShards := <-t.reshardChan:
			t.shards.stop()
			t.shards.start(numShards)
		case <-t.quit:
			return
		}
	}
}

// upstream: prometheus/prometheus storage/remote/queue_manager.go:528-534 @1a9cdbd024fea05a1888c3164058087476cfdc3b
func (t *QueueManager) newShards() *shards {
	s := &shards{
		qm:   t,
		done: make(chan struct{}),
	}
	return s
}

type shards struct {
	mtx          sync.RWMutex
	qm           *QueueManager
	queues       []chan TimeSeries
	done         chan struct{}
	running      int32
	softShutdown chan struct{}
	hardShutdown context.CancelFunc
}

// upstream: prometheus/prometheus storage/remote/queue_manager.go:556-576 @1a9cdbd024fea05a1888c3164058087476cfdc3b
func (s *shards) start(n int) {
	s.mtx.Lock()
	defer s.mtx.Unlock()

	newQueues := make([]chan TimeSeries, n)
	for i := 0; i < n; i++ {
		newQueues[i] = make(chan TimeSeries, s.qm.cfg.Capacity)
	}

	s.queues = newQueues

	var hardShutdownCtx context.Context
	hardShutdownCtx, s.hardShutdown = context.WithCancel(context.Background())
	s.softShutdown = make(chan struct{})
	s.running = int32(n)
	s.done = make(chan struct{})
	for i := 0; i < n; i++ {
		go s.runShard(hardShutdownCtx, i, newQueues[i])
	}
}

// upstream: prometheus/prometheus storage/remote/queue_manager.go:579-606 @1a9cdbd024fea05a1888c3164058087476cfdc3b
func (s *shards) stop() {
	s.mtx.RLock()
	close(s.softShutdown)
	s.mtx.RUnlock()

	s.mtx.Lock()
	defer s.mtx.Unlock()
	for _, queue := range s.queues {
		close(queue)
	}
	select {
	case <-s.done:
		return
	case <-time.After(s.qm.flushDeadline):
	}

	s.hardShutdown()
	<-s.done
}

// upstream: prometheus/prometheus storage/remote/queue_manager.go:629-697 @1a9cdbd024fea05a1888c3164058087476cfdc3b
func (s *shards) runShard(ctx context.Context, i int, queue chan TimeSeries) {
	defer func() {
		if atomic.AddInt32(&s.running, -1) == 0 {
			close(s.done)
		}
	}()

	// one sample read before the scenario's stop (enqueue and the WAL watcher are left out)
	pendingSamples := []TimeSeries{{}}

	max := s.qm.cfg.MaxSamplesPerSend
	timer := time.NewTimer(s.qm.cfg.BatchSendDeadline)
	stop := func() {
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
	defer stop()

	for {
		select {
		case <-ctx.Done():
			return

		case sample, ok := <-queue:
			if !ok {
				if len(pendingSamples) > 0 {
					s.sendSamples(ctx, pendingSamples)
				}
				return
			}

			pendingSamples = append(pendingSamples, sample)

			if len(pendingSamples) >= max {
				s.sendSamples(ctx, pendingSamples[:max])
				pendingSamples = pendingSamples[max:]

				stop()
				timer.Reset(s.qm.cfg.BatchSendDeadline)
			}

		case <-timer.C:
			if len(pendingSamples) > 0 {
				s.sendSamples(ctx, pendingSamples)
				pendingSamples = pendingSamples[:0]
			}
			timer.Reset(s.qm.cfg.BatchSendDeadline)
		}
	}
}

// upstream: prometheus/prometheus storage/remote/queue_manager.go:699-711 @1a9cdbd024fea05a1888c3164058087476cfdc3b
func (s *shards) sendSamples(ctx context.Context, samples []TimeSeries) {
	_ = s.sendSamplesWithBackoff(ctx, samples)
}

// The remote write: one request to a slow endpoint, cancelled by the hard shutdown.
// upstream: prometheus/prometheus storage/remote/queue_manager.go:714-752 @1a9cdbd024fea05a1888c3164058087476cfdc3b
func (s *shards) sendSamplesWithBackoff(ctx context.Context, samples []TimeSeries) error {
	select {
	case <-time.After(sendDuration):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
