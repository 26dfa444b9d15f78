// Package hc04 is the Go twin of fuzzfarm/examples/hc04_helm_get_map.py (HC-04, helm/helm
// issue #6643, fix PR #6654 commit 33bb8885): Helm 2's Client.Get writes shared maps from the
// per-resource callbacks batchPerform runs in parallel.
//
// Kept: perform's unbuffered errs channel and its early return, batchPerform's goroutine per
// resource and its WaitGroup per kind, the callback's nested map writes and its write of the
// captured objPods/err. Stubbed: the resource builder, info.Get() (an API round trip, here a
// runtime.Gosched), printing, the related-pod lookup (a Pod has no selector, so it returns
// objPods unchanged, as upstream's does for a Pod).
package hc04

import (
	"errors"
	"runtime"
	"sync"
)

// Info is a resource.Info: kind and name of one resource.
type Info struct{ Kind, Version, Name string }

// Get fetches the object from the API server (stubbed: a yield where the round trip would block).
func (i *Info) Get() error { runtime.Gosched(); return nil }

// Result is resource.Result.
type Result []*Info

// ResourceActorFunc is kube.ResourceActorFunc.
type ResourceActorFunc func(*Info) error

// ErrNoObjectsVisited is kube.ErrNoObjectsVisited.
var ErrNoObjectsVisited = errors.New("no objects visited")

// upstream: helm/helm pkg/kube/client.go:615-630 @c0c2270fa2bf84f4851e5ebbf046ad0df67738cd
func perform(infos Result, fn ResourceActorFunc) error {
	if len(infos) == 0 {
		return ErrNoObjectsVisited
	}

	errs := make(chan error)
	go batchPerform(infos, fn, errs)

	for range infos {
		err := <-errs
		if err != nil {
			return err
		}
	}
	return nil
}

// upstream: helm/helm pkg/kube/client.go:632-647 @c0c2270fa2bf84f4851e5ebbf046ad0df67738cd
func batchPerform(infos Result, fn ResourceActorFunc, errs chan<- error) {
	var kind string
	var wg sync.WaitGroup
	for _, info := range infos {
		currentKind := info.Kind
		if kind != currentKind {
			wg.Wait()
			kind = currentKind
		}
		wg.Add(1)
		go func(i *Info) {
			errs <- fn(i)
			wg.Done()
		}(info)
	}
}

// Pod is v1.Pod.
type Pod struct{ Name string }

// Client is kube.Client; infos stands for what BuildUnstructured would read.
type Client struct{ infos Result }

// upstream: helm/helm pkg/kube/client.go:981-1010 @c0c2270fa2bf84f4851e5ebbf046ad0df67738cd
func (c *Client) getSelectRelationPod(info *Info, objPods map[string][]Pod) (map[string][]Pod, error) {
	if info == nil {
		return objPods, nil
	}
	// a Pod has no selector: getSelectorFromObject returns !ok
	return objPods, nil
}
