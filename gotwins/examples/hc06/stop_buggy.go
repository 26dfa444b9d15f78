//go:build !fixed

package hc06

// Logging and the intern-pool release stubbed.
// upstream: prometheus/prometheus storage/remote/queue_manager.go:320-335 @1a9cdbd024fea05a1888c3164058087476cfdc3b
func (t *QueueManager) Stop() {
	close(t.quit)
	t.shards.stop()
	t.wg.Wait()
}
