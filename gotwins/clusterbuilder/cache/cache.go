// Package cache is controller-runtime v0.17.6's pkg/cache as far as cache.New goes, with the
// helpers it calls (apiutil, golang.org/x/exp/maps, k8s.io/utils/ptr). defaultOpts keeps
// upstream's loops and map writes in order: its write at cache.go:488 into the caller's
// DefaultNamespaces map is the seed bug's `concurrent map writes` when two goroutines pass
// the same map.
package cache

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"fuzzfarm.dev/gotwins/clusterbuilder/rest"
)

// NamespaceAll is metav1.NamespaceAll.
const NamespaceAll = ""

var defaultSyncPeriod = 10 * time.Hour

// Selector stands for labels.Selector and fields.Selector.
type Selector interface{ String() string }

type notEqual struct{ field, value string }

func (s notEqual) String() string { return s.field + "!=" + s.value }

type and []Selector

func (a and) String() string {
	var parts []string
	for _, s := range a {
		parts = append(parts, s.String())
	}
	return strings.Join(parts, ",")
}

// Object stands for client.Object (a ByObject key).
type Object interface{ Kind() string }

// Config is the per-namespace (or per-object) cache configuration.
type Config struct {
	LabelSelector         Selector
	FieldSelector         Selector
	Transform             func(interface{}) (interface{}, error)
	UnsafeDisableDeepCopy *bool
}

// ByObject is the per-object-type configuration.
type ByObject struct {
	Namespaces            map[string]Config
	Label                 Selector
	Field                 Selector
	Transform             func(interface{}) (interface{}, error)
	UnsafeDisableDeepCopy *bool
}

// Scheme stands for runtime.Scheme.
type Scheme struct{ Name string }

// RESTMapper stands for meta.RESTMapper.
type RESTMapper interface {
	RESTMapping(kind string) (namespaced bool, err error)
}

// Options are cache.Options.
type Options struct {
	HTTPClient                   interface{}
	Scheme                       *Scheme
	Mapper                       RESTMapper
	SyncPeriod                   *time.Duration
	DefaultNamespaces            map[string]Config
	DefaultLabelSelector         Selector
	DefaultFieldSelector         Selector
	DefaultTransform             func(interface{}) (interface{}, error)
	DefaultUnsafeDisableDeepCopy *bool
	ByObject                     map[Object]ByObject
	ReaderFailOnMissingInformer  bool
}

// Cache is a built cache.
type Cache interface{}

type informerCache struct {
	scheme    *Scheme
	namespace string
	config    Config
}

type multiNamespaceCache struct {
	namespaceToCache map[string]Cache
	Scheme           *Scheme
	RESTMapper       RESTMapper
	clusterCache     Cache
}

type delegatingByGVKCache struct {
	scheme       *Scheme
	caches       map[string]Cache
	defaultCache Cache
}

// DefaultScheme is scheme.Scheme.
var DefaultScheme = &Scheme{Name: "client-go"}

// upstream: kubernetes-sigs/controller-runtime pkg/cache/cache.go:306-347 @v0.17.6
func New(cfg *rest.Config, opts Options) (Cache, error) {
	opts, err := defaultOpts(cfg, opts)
	if err != nil {
		return nil, err
	}

	newCacheFunc := newCache(cfg, opts)

	var defaultCache Cache
	if len(opts.DefaultNamespaces) > 0 {
		defaultConfig := optionDefaultsToConfig(&opts)
		defaultCache = newMultiNamespaceCache(newCacheFunc, opts.Scheme, opts.Mapper, opts.DefaultNamespaces, &defaultConfig)
	} else {
		defaultCache = newCacheFunc(optionDefaultsToConfig(&opts), NamespaceAll)
	}

	if len(opts.ByObject) == 0 {
		return defaultCache, nil
	}

	delegating := &delegatingByGVKCache{
		scheme:       opts.Scheme,
		caches:       make(map[string]Cache, len(opts.ByObject)),
		defaultCache: defaultCache,
	}

	for obj, config := range opts.ByObject {
		gvk, err := GVKForObject(obj, opts.Scheme)
		if err != nil {
			return nil, fmt.Errorf("failed to get GVK for type %T: %w", obj, err)
		}
		var cache Cache
		if len(config.Namespaces) > 0 {
			cache = newMultiNamespaceCache(newCacheFunc, opts.Scheme, opts.Mapper, config.Namespaces, nil)
		} else {
			cache = newCacheFunc(byObjectToConfig(config), NamespaceAll)
		}
		delegating.caches[gvk] = cache
	}

	return delegating, nil
}

// upstream: kubernetes-sigs/controller-runtime pkg/cache/cache.go:349-356 @v0.17.6
func optionDefaultsToConfig(opts *Options) Config {
	return Config{
		LabelSelector:         opts.DefaultLabelSelector,
		FieldSelector:         opts.DefaultFieldSelector,
		Transform:             opts.DefaultTransform,
		UnsafeDisableDeepCopy: opts.DefaultUnsafeDisableDeepCopy,
	}
}

// upstream: kubernetes-sigs/controller-runtime pkg/cache/cache.go:358-365 @v0.17.6
func byObjectToConfig(byObject ByObject) Config {
	return Config{
		LabelSelector:         byObject.Label,
		FieldSelector:         byObject.Field,
		Transform:             byObject.Transform,
		UnsafeDisableDeepCopy: byObject.UnsafeDisableDeepCopy,
	}
}

type newCacheFunc func(config Config, namespace string) Cache

// upstream: kubernetes-sigs/controller-runtime pkg/cache/cache.go:369-391 @v0.17.6
func newCache(restConfig *rest.Config, opts Options) newCacheFunc {
	// upstream: kubernetes-sigs/controller-runtime pkg/cache/cache.go:370-390 @v0.17.6
	return func(config Config, namespace string) Cache {
		_ = *opts.SyncPeriod
		_ = Deref(config.UnsafeDisableDeepCopy, false)
		return &informerCache{scheme: opts.Scheme, namespace: namespace, config: config}
	}
}

// upstream: kubernetes-sigs/controller-runtime pkg/cache/cache.go:393-496 @v0.17.6
func defaultOpts(config *rest.Config, opts Options) (Options, error) {
	config = rest.CopyConfig(config)
	if config.UserAgent == "" {
		config.UserAgent = rest.DefaultKubernetesUserAgent()
	}

	// Use the rest HTTP client for the provided config if unset
	if opts.HTTPClient == nil {
		var err error
		opts.HTTPClient, err = rest.HTTPClientFor(config)
		if err != nil {
			return Options{}, fmt.Errorf("could not create HTTP client from config: %w", err)
		}
	}

	// Use the default Kubernetes Scheme if unset
	if opts.Scheme == nil {
		opts.Scheme = DefaultScheme
	}

	// Construct a new Mapper if unset
	if opts.Mapper == nil {
		var err error
		opts.Mapper, err = NewDynamicRESTMapper(config, opts.HTTPClient)
		if err != nil {
			return Options{}, fmt.Errorf("could not create RESTMapper from config: %w", err)
		}
	}

	for obj, byObject := range opts.ByObject {
		isNamespaced, err := IsObjectNamespaced(obj, opts.Scheme, opts.Mapper)
		if err != nil {
			return opts, fmt.Errorf("failed to determine if %T is namespaced: %w", obj, err)
		}
		if !isNamespaced && byObject.Namespaces != nil {
			return opts, fmt.Errorf("type %T is not namespaced, but its ByObject.Namespaces setting is not nil", obj)
		}

		if isNamespaced && byObject.Namespaces == nil {
			byObject.Namespaces = Clone(opts.DefaultNamespaces)
		}

		// Default the namespace-level configs first, because they need to use the undefaulted type-level config
		// to be able to potentially fall through to settings from DefaultNamespaces.
		for namespace, config := range byObject.Namespaces {
			// 1. Default from the undefaulted type-level config
			config = defaultConfig(config, byObjectToConfig(byObject))

			// 2. Default from the namespace-level config.
			if defaultNamespaceSettings, hasDefaultNamespace := opts.DefaultNamespaces[namespace]; hasDefaultNamespace {
				config = defaultConfig(config, defaultNamespaceSettings)
			}

			// 3. Default from the global defaults
			config = defaultConfig(config, optionDefaultsToConfig(&opts))

			if namespace == NamespaceAll {
				config.FieldSelector = and(
					appendIfNotNil(
						namespaceAllSelector(Keys(byObject.Namespaces)),
						config.FieldSelector,
					),
				)
			}

			byObject.Namespaces[namespace] = config
		}

		// Only default ByObject iself if it isn't namespaced or has no namespaces configured.
		if !isNamespaced || len(byObject.Namespaces) == 0 {
			defaultedConfig := defaultConfig(byObjectToConfig(byObject), optionDefaultsToConfig(&opts))
			byObject.Label = defaultedConfig.LabelSelector
			byObject.Field = defaultedConfig.FieldSelector
			byObject.Transform = defaultedConfig.Transform
			byObject.UnsafeDisableDeepCopy = defaultedConfig.UnsafeDisableDeepCopy
		}

		opts.ByObject[obj] = byObject
	}

	// Default namespaces after byObject has been defaulted.
	for namespace, cfg := range opts.DefaultNamespaces {
		cfg = defaultConfig(cfg, optionDefaultsToConfig(&opts))
		if namespace == NamespaceAll {
			cfg.FieldSelector = and(
				appendIfNotNil(
					namespaceAllSelector(Keys(opts.DefaultNamespaces)),
					cfg.FieldSelector,
				),
			)
		}
		opts.DefaultNamespaces[namespace] = cfg
	}

	// Default the resync period to 10 hours if unset
	if opts.SyncPeriod == nil {
		opts.SyncPeriod = &defaultSyncPeriod
	}
	return opts, nil
}

// upstream: kubernetes-sigs/controller-runtime pkg/cache/cache.go:498-513 @v0.17.6
func defaultConfig(toDefault, defaultFrom Config) Config {
	if toDefault.LabelSelector == nil {
		toDefault.LabelSelector = defaultFrom.LabelSelector
	}
	if toDefault.FieldSelector == nil {
		toDefault.FieldSelector = defaultFrom.FieldSelector
	}
	if toDefault.Transform == nil {
		toDefault.Transform = defaultFrom.Transform
	}
	if toDefault.UnsafeDisableDeepCopy == nil {
		toDefault.UnsafeDisableDeepCopy = defaultFrom.UnsafeDisableDeepCopy
	}

	return toDefault
}

// upstream: kubernetes-sigs/controller-runtime pkg/cache/cache.go:515-525 @v0.17.6
func namespaceAllSelector(namespaces []string) []Selector {
	selectors := make([]Selector, 0, len(namespaces)-1)
	sort.Strings(namespaces)
	for _, namespace := range namespaces {
		if namespace != NamespaceAll {
			selectors = append(selectors, notEqual{"metadata.namespace", namespace})
		}
	}

	return selectors
}

// upstream: kubernetes-sigs/controller-runtime pkg/cache/cache.go:527-532 @v0.17.6
func appendIfNotNil[T comparable](a []T, b T) []T {
	if b != *new(T) {
		return append(a, b)
	}
	return a
}

// upstream: kubernetes-sigs/controller-runtime pkg/cache/multi_namespace_cache.go:38-63 @v0.17.6
func newMultiNamespaceCache(
	newCache newCacheFunc,
	scheme *Scheme,
	restMapper RESTMapper,
	namespaces map[string]Config,
	globalConfig *Config, // may be nil in which case no cache for cluster-scoped objects will be created
) Cache {
	// Create every namespace cache.
	caches := map[string]Cache{}
	for namespace, config := range namespaces {
		caches[namespace] = newCache(config, namespace)
	}

	// Create a cache for cluster scoped resources if requested
	var clusterCache Cache
	if globalConfig != nil {
		clusterCache = newCache(*globalConfig, NamespaceAll)
	}

	return &multiNamespaceCache{
		namespaceToCache: caches,
		Scheme:           scheme,
		RESTMapper:       restMapper,
		clusterCache:     clusterCache,
	}
}
