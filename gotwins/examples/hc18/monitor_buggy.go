//go:build !fixed

package hc18

import "time"

// The idle timeout's expiry (reset every stream, close the connection) is left out: the
// scenario's timeout is far beyond the run.
// upstream: moby/spdystream connection.go:49-103 @e731c8f9f19ffd7e51a469a2de1580c1dfbb4fae
func (i *idleAwareFramer) monitor() {
	var (
		timer     *time.Timer
		expired   <-chan time.Time
		resetChan = i.resetChan
	)
Loop:
	for {
		select {
		case timeout := <-i.setTimeoutChan:
			i.timeout = timeout
			if timeout == 0 {
				if timer != nil {
					timer.Stop()
				}
			} else {
				if timer == nil {
					timer = time.NewTimer(timeout)
					expired = timer.C
				} else {
					timer.Reset(timeout)
				}
			}
		case <-resetChan:
			if timer != nil && i.timeout > 0 {
				timer.Reset(i.timeout)
			}
		case <-expired:
			// upstream resets every stream under streamCond.L and closes the connection from a
			// goroutine; the scenario's timeout is far beyond the run, so reaching it is its error
			go func() {
				panic("HC-18 scenario: the idle timeout fired; it must exceed the run")
			}()
		case <-i.conn.closeChan:
			if timer != nil {
				timer.Stop()
			}

			i.writeLock.Lock()
			close(resetChan)
			i.resetChan = nil
			i.writeLock.Unlock()
			break Loop
		}
	}

	// Drain resetChan
	for range resetChan {
	}
}
