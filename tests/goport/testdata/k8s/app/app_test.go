package k8sapp

import "testing"

func TestQueueHandOff(t *testing.T) {
	if handOff() != 7 {
		t.Fatal("the worker missed the producer's write")
	}
}

func TestShutDownWithDrainWaitsForDone(t *testing.T) {
	if drain() != 1 {
		t.Fatal("ShutDownWithDrain returned before Done")
	}
}

func TestQueueRules(t *testing.T) {
	if got := queueRules(); got != "dedup processing requeued drained" {
		t.Fatal(got)
	}
}

func TestUntilReturnsAfterF(t *testing.T) {
	if untilCounts(true) < 1 {
		t.Fatal("f never ran")
	}
}

func TestUntilStillRunning(t *testing.T) { untilCounts(false) }

func TestUntilWithContext(t *testing.T) {
	if a, b := untilCtx(); a < 1 || b < 1 {
		t.Fatal(a, b)
	}
}

func TestPolls(t *testing.T) {
	if got := polls(); got != "done3 cancelled immediate timeout immediateUntil stopped" {
		t.Fatal(got)
	}
}

func TestBackoffs(t *testing.T) {
	if got := backoffs(); got != "steps exhausted jitter" {
		t.Fatal(got)
	}
}

func TestForever(t *testing.T) { forever() }
