// Package client is controller-runtime v0.17.6's client.New (a stub: it only keeps its options).
package client

import (
	"fuzzfarm.dev/gotwins/clusterbuilder/cache"
	"fuzzfarm.dev/gotwins/clusterbuilder/rest"
)

// CacheOptions says which reader serves cached reads.
type CacheOptions struct {
	Reader       cache.Cache
	Unstructured bool
}

// Options are client.Options.
type Options struct {
	HTTPClient interface{}
	Scheme     *cache.Scheme
	Mapper     cache.RESTMapper
	Cache      *CacheOptions
	DryRun     *bool
}

// Client is a built client.
type Client struct {
	config *rest.Config
	opts   Options
}

// upstream: kubernetes-sigs/controller-runtime pkg/client/client.go:109-115 @v0.17.6
func New(config *rest.Config, options Options) (*Client, error) {
	return &Client{config: config, opts: options}, nil
}
