// Package hc10 is the Go twin of fuzzfarm/examples/hc10_elected_wg_negative.py (HC-10,
// envoyproxy/gateway issue #5065, fix PR #5066 commit 42ae06d3): a WaitGroup used as a one-shot
// "elected" latch gets a second Done() after a config reload.
//
// Kept: config.New's Add(1), setupRunners building the provider (whose elected goroutine calls
// Done) and the infra runner (whose goroutine waits) from copies of the server config, and the
// fix's fresh channel per setup. Stubbed: every other runner, the rest of the provider and the
// infra manager; controller-runtime's manager is a test double whose Elected() closes after a
// delay (a manager that already holds the lease closes it at once).
package hc10

import (
	"context"
	"time"
)

// Manager is the test double of controller-runtime's manager.Manager.
type Manager struct{ elected chan struct{} }

// newManager returns a manager elected after delay (0: it already holds the lease).
func newManager(delay time.Duration) *Manager {
	m := &Manager{elected: make(chan struct{})}
	go func() {
		time.Sleep(delay)
		close(m.elected)
	}()
	return m
}

// Elected closes when the manager is elected.
func (m *Manager) Elected() <-chan struct{} { return m.elected }

// Provider is the kubernetes provider.
type Provider struct{ manager *Manager }

// Runner is the infrastructure runner; Config holds a copy of the server config, as upstream's.
type Runner struct{ Config }

// Config is infrastructure/runner.Config.
type Config struct{ Server }

// electionDelay is the next manager's election delay (the scenario sets it per setup).
var electionDelay time.Duration

// startRunners is what setupRunners does after its first lines: the provider runner builds the
// provider from its copy of the config, the infra runner starts from its own copy.
func startRunners(ctx context.Context, cfg *Server) error {
	providerCfg := *cfg
	if _, err := New(ctx, &providerCfg); err != nil {
		return err
	}
	infraRunner := &Runner{Config{Server: *cfg}}
	return infraRunner.Start(ctx)
}
