package cache

import (
	"fmt"
	"sort"

	"fuzzfarm.dev/gotwins/clusterbuilder/rest"
)

// The helpers defaultOpts and New call: controller-runtime's apiutil (stubs: the discovery
// requests become one check of the scripted server), golang.org/x/exp/maps and k8s.io/utils/ptr.

type mapper struct {
	server *rest.Server
}

// upstream: kubernetes-sigs/controller-runtime pkg/client/apiutil/restmapper.go:35-50 @v0.17.6
func NewDynamicRESTMapper(cfg *rest.Config, httpClient interface{}) (RESTMapper, error) {
	if httpClient == nil {
		return nil, fmt.Errorf("httpClient must not be nil, consider using rest.HTTPClientFor(c) to create a client")
	}
	return &mapper{server: cfg.Server}, nil
}

// upstream: kubernetes-sigs/controller-runtime pkg/client/apiutil/restmapper.go:117-127 @v0.17.6
func (m *mapper) RESTMapping(kind string) (bool, error) {
	if m.server != nil && m.server.Unreachable {
		return false, rest.ErrRefused
	}
	return kind != "Node", nil
}

// upstream: kubernetes-sigs/controller-runtime pkg/client/apiutil/apimachinery.go:63-70 @v0.17.6
func IsObjectNamespaced(obj Object, scheme *Scheme, restmapper RESTMapper) (bool, error) {
	gvk, err := GVKForObject(obj, scheme)
	if err != nil {
		return false, err
	}
	return restmapper.RESTMapping(gvk)
}

// upstream: kubernetes-sigs/controller-runtime pkg/client/apiutil/apimachinery.go:92-156 @v0.17.6
func GVKForObject(obj Object, scheme *Scheme) (string, error) {
	return obj.Kind(), nil
}

// upstream: golang/exp maps/maps.go:10-16 @a9213eeb770e
func Keys[M ~map[K]V, K comparable, V any](m M) []K {
	r := make([]K, 0, len(m))
	for k := range m {
		r = append(r, k)
	}
	return r
}

// upstream: golang/exp maps/maps.go:65-75 @a9213eeb770e
func Clone[M ~map[K]V, K comparable, V any](m M) M {
	// Preserve nil in case it matters.
	if m == nil {
		return nil
	}
	r := make(M, len(m))
	for k, v := range m {
		r[k] = v
	}
	return r
}

// upstream: kubernetes/utils ptr/ptr.go:56-61 @3b25d923346b
func Deref[T any](ptr *T, def T) T {
	if ptr != nil {
		return *ptr
	}
	return def
}

var _ = sort.Strings
