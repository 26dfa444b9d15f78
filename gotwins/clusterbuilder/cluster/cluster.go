// Package cluster is controller-runtime v0.17.6's cluster.New: apply the caller's options to a
// zero Options, default them, then build the cache (cache.New: the racy defaultOpts) and the
// clients. Statement order kept; the event recorder is a stub.
package cluster

import (
	"errors"
	"time"

	"fuzzfarm.dev/gotwins/clusterbuilder/cache"
	"fuzzfarm.dev/gotwins/clusterbuilder/client"
	"fuzzfarm.dev/gotwins/clusterbuilder/rest"
)

// Options are cluster.Options.
type Options struct {
	Scheme              *cache.Scheme
	MapperProvider      func(c *rest.Config, httpClient interface{}) (cache.RESTMapper, error)
	HTTPClient          interface{}
	Cache               cache.Options
	NewCache            func(config *rest.Config, opts cache.Options) (cache.Cache, error)
	Client              client.Options
	NewClient           func(config *rest.Config, options client.Options) (*client.Client, error)
	SyncPeriod          *time.Duration
	newRecorderProvider func(config *rest.Config, httpClient interface{}) (*Provider, error)
}

// Option sets an option.
type Option func(*Options)

// Cluster is a built cluster.
type Cluster interface{}

type cluster struct {
	config    *rest.Config
	cache     cache.Cache
	client    *client.Client
	apiReader *client.Client
	recorder  *Provider
	mapper    cache.RESTMapper
}

// Provider is the event recorder provider.
type Provider struct{ config *rest.Config }

// upstream: kubernetes-sigs/controller-runtime pkg/internal/recorder/recorder.go:114-126 @v0.17.6
func NewProvider(config *rest.Config, httpClient interface{}) (*Provider, error) {
	if httpClient == nil {
		panic("httpClient must not be nil")
	}
	return &Provider{config: config}, nil
}

// upstream: kubernetes-sigs/controller-runtime pkg/cluster/cluster.go:156-262 @v0.17.6
func New(config *rest.Config, opts ...Option) (Cluster, error) {
	if config == nil {
		return nil, errors.New("must specify Config")
	}

	originalConfig := config

	config = rest.CopyConfig(config)
	if config.UserAgent == "" {
		config.UserAgent = rest.DefaultKubernetesUserAgent()
	}

	options := Options{}
	for _, opt := range opts {
		opt(&options)
	}
	options, err := setOptionsDefaults(options, config)
	if err != nil {
		return nil, err
	}

	// Create the mapper provider
	mapper, err := options.MapperProvider(config, options.HTTPClient)
	if err != nil {
		return nil, err
	}

	// Create the cache for the cached read client and registering informers
	cacheOpts := options.Cache
	{
		if cacheOpts.Scheme == nil {
			cacheOpts.Scheme = options.Scheme
		}
		if cacheOpts.Mapper == nil {
			cacheOpts.Mapper = mapper
		}
		if cacheOpts.HTTPClient == nil {
			cacheOpts.HTTPClient = options.HTTPClient
		}
		if cacheOpts.SyncPeriod == nil {
			cacheOpts.SyncPeriod = options.SyncPeriod
		}
	}
	cache, err := options.NewCache(config, cacheOpts)
	if err != nil {
		return nil, err
	}

	// Create the client, and default its options.
	clientOpts := options.Client
	{
		if clientOpts.Scheme == nil {
			clientOpts.Scheme = options.Scheme
		}
		if clientOpts.Mapper == nil {
			clientOpts.Mapper = mapper
		}
		if clientOpts.HTTPClient == nil {
			clientOpts.HTTPClient = options.HTTPClient
		}
		if clientOpts.Cache == nil {
			clientOpts.Cache = &client.CacheOptions{
				Unstructured: false,
			}
		}
		if clientOpts.Cache.Reader == nil {
			clientOpts.Cache.Reader = cache
		}
	}
	clientWriter, err := options.NewClient(config, clientOpts)
	if err != nil {
		return nil, err
	}

	// Create the API Reader, a client with no cache.
	clientReader, err := client.New(config, client.Options{
		HTTPClient: options.HTTPClient,
		Scheme:     options.Scheme,
		Mapper:     mapper,
	})
	if err != nil {
		return nil, err
	}

	// Create the recorder provider to inject event recorders for the components.
	recorderProvider, err := options.newRecorderProvider(config, options.HTTPClient)
	if err != nil {
		return nil, err
	}

	return &cluster{
		config:    originalConfig,
		cache:     cache,
		client:    clientWriter,
		apiReader: clientReader,
		recorder:  recorderProvider,
		mapper:    mapper,
	}, nil
}

// upstream: kubernetes-sigs/controller-runtime pkg/cluster/cluster.go:265-316 @v0.17.6
func setOptionsDefaults(options Options, config *rest.Config) (Options, error) {
	if options.HTTPClient == nil {
		var err error
		options.HTTPClient, err = rest.HTTPClientFor(config)
		if err != nil {
			return options, err
		}
	}

	// Use the Kubernetes client-go scheme if none is specified
	if options.Scheme == nil {
		options.Scheme = cache.DefaultScheme
	}

	if options.MapperProvider == nil {
		options.MapperProvider = cache.NewDynamicRESTMapper
	}

	// Allow users to define how to create a new client
	if options.NewClient == nil {
		options.NewClient = client.New
	}

	// Allow newCache to be mocked
	if options.NewCache == nil {
		options.NewCache = cache.New
	}

	// Allow newRecorderProvider to be mocked
	if options.newRecorderProvider == nil {
		options.newRecorderProvider = NewProvider
	}

	return options, nil
}
