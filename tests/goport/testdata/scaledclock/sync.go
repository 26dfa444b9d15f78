// Package scaledclock: a program whose clock is scaled as the checker twin's is (gotwins/checker,
// `unit = time.Millisecond` standing for upstream's second). WaitForSync gives a started worker
// 60 units to report; with a unit of a millisecond, Go on an idle machine always makes it, and
// only a goroutine kept runnable for 60 ms (a starved machine) misses it.
package scaledclock

import (
	"errors"
	"time"
)

const unit = time.Millisecond

var errTimeout = errors.New("timed out waiting for the worker to sync")

func WaitForSync() error {
	synced := make(chan struct{})
	go func() {
		close(synced)
	}()
	select {
	case <-synced:
		return nil
	case <-time.After(60 * unit):
		return errTimeout
	}
}
