//go:build !fixed

package hc10

import (
	"context"
	"sync"
)

// Server keeps the Elected latch of config.Server.
type Server struct {
	// Elected chan is used to signal what a leader is elected
	Elected *sync.WaitGroup
}

// upstream: envoyproxy/gateway internal/envoygateway/config/config.go:45-57 @4d560a27e771bf540bc1d5e9b078bb9061983612
func NewServer() (*Server, error) {
	server := &Server{
		Elected: &sync.WaitGroup{},
	}
	// Block the tasks that are waiting for the leader to be elected
	server.Elected.Add(1)
	return server, nil
}

// upstream: envoyproxy/gateway internal/cmd/server.go:130-238 @4d560a27e771bf540bc1d5e9b078bb9061983612
func setupRunners(ctx context.Context, cfg *Server) (err error) {
	return startRunners(ctx, cfg)
}

// The manager's options and the controllers it registers stubbed.
// upstream: envoyproxy/gateway internal/provider/kubernetes/kubernetes.go:39-122 @4d560a27e771bf540bc1d5e9b078bb9061983612
func New(ctx context.Context, svrCfg *Server) (*Provider, error) {
	mgr := newManager(electionDelay)

	// Emit elected & continue with the tasks that require leadership.
	go func() {
		<-mgr.Elected()
		svrCfg.Elected.Done()
	}()

	return &Provider{manager: mgr}, nil
}

// The infra manager and its subscriptions stubbed; leader election is on.
// upstream: envoyproxy/gateway internal/infrastructure/runner/runner.go:39-82 @4d560a27e771bf540bc1d5e9b078bb9061983612
func (r *Runner) Start(ctx context.Context) (err error) {
	initInfra := func() {}

	go func() {
		r.Elected.Wait()
		initInfra()
	}()
	return
}
