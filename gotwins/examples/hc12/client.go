// Package hc12 is the Go twin of fuzzfarm/examples/hc12_perform_leak.py (HC-12, helm/helm PR
// #11898 commit 11150cdc): perform returns on the first error and leaves the workers that
// finish later blocked on the unbuffered errs channel.
//
// client.go holds batchPerform (unchanged by the fix, at its parent); perform_buggy.go and
// perform_fixed.go hold perform before and at the fix (hashicorp/go-multierror, not stdlib,
// is errors.Join here).
package hc12

import (
	"errors"
	"sync"
)

// Info is a resource.Info: kind and name.
type Info struct{ Kind, Name string }

// ResourceList is kube.ResourceList.
type ResourceList []*Info

// ErrNoObjectsVisited is kube.ErrNoObjectsVisited.
var ErrNoObjectsVisited = errors.New("no objects visited")

// upstream: helm/helm pkg/kube/client.go:571-586 @e007c900ce5f2233c8583565d5ba1b0433b1a213
func batchPerform(infos ResourceList, fn func(*Info) error, errs chan<- error) {
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
