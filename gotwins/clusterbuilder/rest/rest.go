// Package rest holds the client-go pieces the cluster goroutines go through (kubernetes/client-go
// v0.30.1): the rest.Config, its copy and user agent, the HTTP client with the process-wide TLS
// transport cache (a lock and a map: every cluster goroutine passes through it), and the
// clientset constructor. The network is a stub: a scripted API server per host.
package rest

import (
	"errors"
	"net/http"
	"sync"
	"time"
)

// Config is the part of rest.Config the code reads.
type Config struct {
	Host      string
	UserAgent string
	Timeout   time.Duration
	// Server answers this config's requests (the scripted API server of a build cluster).
	Server *Server
}

// Server is a scripted build cluster: it answers, refuses, denies or never answers.
type Server struct {
	Unreachable bool
	Denied      map[string]bool // verb -> the SelfSubjectAccessReview is not allowed
	BadTLS      bool            // the TLS material does not load
}

// ErrRefused is what an unreachable server gives.
var ErrRefused = errors.New("connect: connection refused")

// upstream: kubernetes/client-go rest/config.go:626-671 @v0.30.1
func CopyConfig(config *Config) *Config {
	c := &Config{
		Host:      config.Host,
		UserAgent: config.UserAgent,
		Timeout:   config.Timeout,
		Server:    config.Server,
	}
	return c
}

// upstream: kubernetes/client-go rest/config.go:498-505 @v0.30.1
func DefaultKubernetesUserAgent() string {
	return "twin/v0.0.0 (linux/amd64) kubernetes/$Format"
}

type tlsCacheKey struct{ host string }

type tlsTransportCache struct {
	mu         sync.Mutex
	transports map[tlsCacheKey]*http.Transport
}

var tlsCache = &tlsTransportCache{transports: make(map[tlsCacheKey]*http.Transport)}

// upstream: kubernetes/client-go transport/cache.go:74-145 @v0.30.1
func (c *tlsTransportCache) get(config *Config) (http.RoundTripper, error) {
	if config.Server != nil && config.Server.BadTLS {
		return nil, errors.New("unable to load root certificates: unable to parse bytes as PEM block")
	}
	key := tlsCacheKey{config.Host}
	// Ensure we only create a single transport for the given TLS options
	c.mu.Lock()
	defer c.mu.Unlock()
	// See if we already have a custom transport for this config
	if t, ok := c.transports[key]; ok {
		return t, nil
	}
	t := &http.Transport{}
	c.transports[key] = t
	return t, nil
}

// upstream: kubernetes/client-go rest/transport.go:32-48 @v0.30.1
func HTTPClientFor(config *Config) (*http.Client, error) {
	transport, err := tlsCache.get(config)
	if err != nil {
		return nil, err
	}
	return &http.Client{Transport: transport, Timeout: config.Timeout}, nil
}

// Clientset is a kubernetes.Clientset: here only the config it was made from.
type Clientset struct {
	Config *Config
}

// upstream: kubernetes/client-go kubernetes/clientset.go:468-482 @v0.30.1
func NewForConfig(c *Config) (*Clientset, error) {
	configShallowCopy := *c
	if _, err := HTTPClientFor(&configShallowCopy); err != nil {
		return nil, err
	}
	return &Clientset{Config: &configShallowCopy}, nil
}
