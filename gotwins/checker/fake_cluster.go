package checker

import (
	"sync"
	"time"
)

// The scripted API server and kubelets the measurement talks to (stubs: no upstream function
// stands behind this file). Times are offsets from the moment the informer starts.

// ObjectSpec is what a spec comparison compares: replicas and the pod template.
type ObjectSpec struct {
	Replicas int
	Template int
}

// RuntimeObject is a controlling object (a Deployment): what upstream reads through
// meta.Accessor and the unstructured spec.
type RuntimeObject struct {
	Namespace, Name string
	UID             int
	ResourceVersion uint64
	Spec            ObjectSpec
}

// DeletedFinalStateUnknown is client-go's tombstone.
type DeletedFinalStateUnknown struct {
	Key string
	Obj interface{}
}

// EventType of a watch event.
type EventType int

const (
	Added EventType = iota
	Modified
	Deleted
)

// WatchEvent is one change the API server commits At after the informer started.
type WatchEvent struct {
	At   time.Duration
	Type EventType
	Obj  interface{} // *RuntimeObject, or a DeletedFinalStateUnknown for a tombstone delete
	Old  *RuntimeObject
}

// PodStep says that from At on, an object has Total pods, Running of them running and ready.
type PodStep struct {
	At             time.Duration
	Total, Running int
}

// FakeCluster is the script: the initial LIST, the watch events, the pods of every object.
type FakeCluster struct {
	Namespace string
	Initial   []*RuntimeObject
	Events    []WatchEvent
	Pods      map[int][]PodStep // by object UID, sorted by At

	mu      sync.Mutex
	started time.Time
}

func (c *FakeCluster) startClock() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started.IsZero() {
		c.started = time.Now()
	}
}

func (c *FakeCluster) now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started.IsZero() {
		return 0
	}
	return time.Since(c.started)
}

// objectsAt is what a LIST returns now.
func (c *FakeCluster) listObjects() []*RuntimeObject {
	t := c.now()
	objs := map[string]*RuntimeObject{}
	var order []string
	put := func(o *RuntimeObject) {
		k := o.Namespace + "/" + o.Name
		if _, ok := objs[k]; !ok {
			order = append(order, k)
		}
		objs[k] = o
	}
	for _, o := range c.Initial {
		put(o)
	}
	for _, ev := range c.Events {
		if ev.At > t {
			break
		}
		switch ev.Type {
		case Deleted:
			k, _ := DeletionHandlingMetaNamespaceKeyFunc(ev.Obj)
			delete(objs, k)
		default:
			put(ev.Obj.(*RuntimeObject))
		}
	}
	var out []*RuntimeObject
	for _, k := range order {
		if o, ok := objs[k]; ok {
			out = append(out, o)
		}
	}
	return out
}

// pod is a pod of an object: running and ready, or not.
type pod struct {
	name    string
	running bool
}

func (c *FakeCluster) podsOf(uid int) []pod {
	t := c.now()
	var cur PodStep
	for _, s := range c.Pods[uid] {
		if s.At > t {
			break
		}
		cur = s
	}
	out := make([]pod, cur.Total)
	for i := range out {
		out[i] = pod{name: "pod", running: i < cur.Running}
	}
	return out
}
