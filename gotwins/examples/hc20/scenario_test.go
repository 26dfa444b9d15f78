package hc20

import (
	"context"
	"testing"
	"time"
)

// resyncCheckPeriod is the Python case's RESYNC_CHECK_PERIOD (1 virtual second) as 1 ms.
const resyncCheckPeriod = time.Millisecond

// handlerFunc is the listener's handler: it hands each added object to the scenario.
type handlerFunc chan interface{}

func (h handlerFunc) OnAdd(obj interface{}, isInInitialList bool) { h <- obj }

// nopStore: shouldResync reports no listener due, so the resync loop never calls Resync.
type nopStore struct{}

func (nopStore) Resync() error { return nil }

// scenario is the Python case's main: an informer with one handler (added before Run); the
// processor's run (R) started first, as sharedIndexInformer.RunWithContext does
// (shared_informer.go:576), then the reflector's resync loop (S) and the controller's
// processing loop handing one object to distribute (C); the handler sees the object, the
// informer is stopped and every goroutine is waited for.
func scenario() {
	informer := NewSharedIndexInformerWithOptions(resyncCheckPeriod)
	p := informer.processor
	handled := make(chan interface{})
	p.addListener(newProcessListener(handlerFunc(handled), 0, 0, time.Now()))
	r := &Reflector{store: nopStore{}, resyncPeriod: informer.resyncCheckPeriod, ShouldResync: p.shouldResync}
	ctx, cancel := context.WithCancel(context.Background())
	resyncerrc := make(chan error, 1)

	var wg Group
	wg.Start(func() { p.run(ctx) })                                           // R
	wg.Start(func() { r.startResync(ctx, resyncerrc) })                       // S
	wg.Start(func() { p.distribute(addNotification{newObj: "pod1"}, false) }) // C (HandleDeltas)
	<-handled
	cancel()
	wg.Wait()
}

// TestScenario runs the scenario as it is: the buggy twin deadlocks only if R stays runnable
// and unscheduled for a whole resync check period after C blocked (the test binary's timeout
// then reports it).
func TestScenario(t *testing.T) {
	scenario()
}

// TestScenarioForcedDelay forces that starvation with the hook upstream's fix added for its
// test (TestListenerResyncPeriodsDelayed: one second of delay against a one-second resync
// period, in a synctest bubble). Here, in real time, run first sleeps ten resync check periods,
// so C blocks in its send and S queues for the write lock behind C's read lock before R asks
// for the read lock. The buggy twin then deadlocks (a hang until the test binary's timeout);
// the fixed one passes.
func TestScenarioForcedDelay(t *testing.T) {
	delay := 10 * resyncCheckPeriod
	sharedProcessorRunDelay.Store(&delay)
	defer sharedProcessorRunDelay.Store(nil)
	scenario()
}
