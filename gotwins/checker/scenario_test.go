package checker

import (
	"testing"
	"time"
)

// script writes a consistent FakeCluster, one change at a time (the Go side of the Python
// harness's ScriptBuilder): resource versions rise, a re-created name gets a new UID.
type script struct {
	c       *FakeCluster
	current map[string]*RuntimeObject
	rv      uint64
	uid     int
	tmpl    int
}

func newScript(namespace string) *script {
	return &script{c: &FakeCluster{Namespace: namespace, Pods: map[int][]PodStep{}}, current: map[string]*RuntimeObject{}}
}

func (s *script) create(name string, replicas int, at, readyAfter time.Duration) {
	s.uid++
	s.tmpl++
	s.rv++
	o := &RuntimeObject{Namespace: s.c.Namespace, Name: name, UID: s.uid, ResourceVersion: s.rv, Spec: ObjectSpec{replicas, s.tmpl}}
	s.current[name] = o
	s.c.Pods[o.UID] = []PodStep{{at, replicas, 0}, {at + readyAfter, replicas, replicas}}
	s.c.Events = append(s.c.Events, WatchEvent{At: at, Type: Added, Obj: o})
}

func (s *script) updateSpec(name string, replicas int, at, readyAfter time.Duration) {
	old := s.current[name]
	s.tmpl++
	s.rv++
	o := *old
	o.ResourceVersion, o.Spec = s.rv, ObjectSpec{replicas, s.tmpl}
	s.current[name] = &o
	s.c.Pods[o.UID] = append(s.c.Pods[o.UID], PodStep{at, replicas, 0}, PodStep{at + readyAfter, replicas, replicas})
	s.c.Events = append(s.c.Events, WatchEvent{At: at, Type: Modified, Obj: &o, Old: old})
}

func (s *script) delete(name string, at, goneAfter time.Duration) {
	old := s.current[name]
	delete(s.current, name)
	s.rv++
	final := *old
	final.ResourceVersion = s.rv
	s.c.Pods[old.UID] = append(s.c.Pods[old.UID], PodStep{at + goneAfter, 0, 0})
	s.c.Events = append(s.c.Events, WatchEvent{At: at, Type: Deleted, Obj: &final})
}

// TestScenario drives the measurement as harnesses/checker_race.py does: the informer
// delivers the watch events into the worker queue at their times while main runs start,
// gather and Dispose (the harness's plan "gather+dispose": gather's poll takes the
// measurement's lock, which orders every event handled before it ahead of Dispose's unlocked
// write of isRunning; the plans without gather race on isRunning in both variants, upstream
// hazard P2 of docs/ports/clusterloader2.md, which `go test -race` reports). The events are the three shapes of the seed bug for one key, all at
// t=0: Add then a spec Update (S1: DeleteAndStop stops a checker that has not run), Delete
// then Add of the same name (S2, PR #2220's stack: Map.Add stops the deletion checker), and
// Dispose while the last checker has not run (S3). Buggy: a nil-func panic in
// objectChecker.Stop when the worker (or Dispose) gets there before the checker goroutine
// stored its cancel. Fixed: never.
func TestScenario(t *testing.T) {
	podIndexerFactory = &sharedPodIndexerFactory{} // upstream's is process-wide: one per run here
	s := newScript("test")
	s.create("obj0", 1, 0, 0)
	s.updateSpec("obj0", 2, 0, 0)
	s.delete("obj0", 0, 0)
	s.create("obj0", 1, 0, 0)

	w := createWaitForControlledPodsRunningMeasurement()
	w.cluster = s.c
	w.kind = "Deployment"
	w.operationTimeout = 60 * unit
	w.checkIfPodsAreUpdated = true
	if err := w.start(); err != nil {
		t.Fatal(err)
	}
	if err := w.gather(defaultSyncTimeout); err != nil {
		t.Errorf("gather: %v", err)
	}
	w.Dispose()
}
