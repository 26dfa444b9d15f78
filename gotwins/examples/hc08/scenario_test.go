package hc08

import "testing"

// TestScenario is the Python case's main: the watch benchmark with two watches on one key and
// one put.
func TestScenario(t *testing.T) {
	watchFunc()
}
