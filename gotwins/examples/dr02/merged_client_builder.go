// Package dr02 is the Go twin of fuzzfarm/examples/dr02_deferred_client_config.py (DR-02,
// kubernetes/kubernetes PR #92139, client-go merge 18c1ef03): createClientConfig's
// double-checked read of clientConfig without the lock.
//
// This file holds what the fix leaves alone, at its parent; the _buggy/_fixed files hold
// createClientConfig before and at the fix. The loader reads no files (a merged config in
// memory, loading a yield where the files would be read); ClientConfig keeps its first call
// and the merged config's path, the in-cluster fallback is left out.
package dr02

import (
	"runtime"
	"sync"
)

// Config is restclient.Config (its host).
type Config struct{ Host string }

// ClientConfig is clientcmd.ClientConfig (the method used here).
type ClientConfig interface {
	ClientConfig() (*Config, error)
}

type directClientConfig struct{ config Config }

func (d *directClientConfig) ClientConfig() (*Config, error) { c := d.config; return &c, nil }

// ClientConfigLoader loads and merges kubeconfig files.
type ClientConfigLoader struct{ host string }

// Load stands for reading and merging the kubeconfig files.
func (l *ClientConfigLoader) Load() (*Config, error) {
	runtime.Gosched()
	return &Config{Host: l.host}, nil
}

// NewNonInteractiveClientConfig builds the merged client config.
func NewNonInteractiveClientConfig(c Config) ClientConfig { return &directClientConfig{config: c} }

// DeferredLoadingClientConfig keeps the loader, the loaded config and its lock.
type DeferredLoadingClientConfig struct {
	loader       *ClientConfigLoader
	clientConfig ClientConfig
	loadingLock  sync.Mutex
}

// upstream: kubernetes/client-go tools/clientcmd/merged_client_builder.go:53-55 @3ab27431ef50d8ae77afe66593d04d5616cbd448
func NewNonInteractiveDeferredLoadingClientConfig(loader *ClientConfigLoader) *DeferredLoadingClientConfig {
	return &DeferredLoadingClientConfig{loader: loader}
}

// upstream: kubernetes/client-go tools/clientcmd/merged_client_builder.go:97-128 @3ab27431ef50d8ae77afe66593d04d5616cbd448
func (config *DeferredLoadingClientConfig) ClientConfig() (*Config, error) {
	mergedClientConfig, err := config.createClientConfig()
	if err != nil {
		return nil, err
	}

	mergedConfig, err := mergedClientConfig.ClientConfig()
	return mergedConfig, err
}
