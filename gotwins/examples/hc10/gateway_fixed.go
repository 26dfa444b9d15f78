//go:build fixed

package hc10

import "context"

// Server keeps the Elected channel of config.Server.
type Server struct {
	// Elected chan is used to signal when an EG instance is elected as leader.
	Elected chan struct{}
}

// upstream: envoyproxy/gateway internal/envoygateway/config/config.go:44-52 @42ae06d31d66016bc7e3d5af6fccc02ab0402c76
func NewServer() (*Server, error) {
	return &Server{
		Elected: make(chan struct{}),
	}, nil
}

// upstream: envoyproxy/gateway internal/cmd/server.go:130-242 @42ae06d31d66016bc7e3d5af6fccc02ab0402c76
func setupRunners(ctx context.Context, cfg *Server) (err error) {
	// The Elected channel is used to block the tasks that are waiting for the leader to be elected.
	// It will be closed once the leader is elected in the controller manager.
	cfg.Elected = make(chan struct{})

	return startRunners(ctx, cfg)
}

// The manager's options and the controllers it registers stubbed.
// upstream: envoyproxy/gateway internal/provider/kubernetes/kubernetes.go:39-124 @42ae06d31d66016bc7e3d5af6fccc02ab0402c76
func New(ctx context.Context, svrCfg *Server) (*Provider, error) {
	mgr := newManager(electionDelay)

	// Emit elected & continue with the tasks that require leadership.
	go func() {
		<-mgr.Elected()
		// Close the elected channel to signal that this EG instance has been elected as leader.
		close(svrCfg.Elected)
	}()

	return &Provider{manager: mgr}, nil
}

// The infra manager and its subscriptions stubbed; leader election is on.
// upstream: envoyproxy/gateway internal/infrastructure/runner/runner.go:39-86 @42ae06d31d66016bc7e3d5af6fccc02ab0402c76
func (r *Runner) Start(ctx context.Context) (err error) {
	initInfra := func() {}

	go func() {
		select {
		case <-ctx.Done():
			return
		case <-r.Elected:
			initInfra()
		}
	}()
	return
}
