//go:build fixed

package hc06

// Logging and the intern-pool release stubbed.
// upstream: prometheus/prometheus storage/remote/queue_manager.go:320-338 @ef19ede14adbb601d9736369b517b20b446ffab7
func (t *QueueManager) Stop() {
	close(t.quit)
	t.wg.Wait()
	// Wait for all QueueManager routines to end before stopping shards (upstream's comment).
	t.shards.stop()
}
