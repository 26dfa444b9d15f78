// Package hc16 is the Go twin of fuzzfarm/examples/hc16_simple_token_deadlock.py (HC-16,
// etcd-io/etcd issue #7471, fix PR #7492 commit 1b1fabef): the simple-token TTL keeper, fed
// through channels of capacity 1, deadlocks with a request that holds the token lock's read
// side while it sends the token's reset.
//
// simple_token_buggy.go and simple_token_fixed.go are auth/simple_token.go before and at the
// fix, with the token generator, invalidateUser and logging left out. The TTL (5 minutes
// upstream; the fix made it a var "for testing purposes") is 5 s in the Python scenario and
// 5 ms here, the resolution 1 ms: time is scaled from seconds to milliseconds.
package hc16

import "time"

// AuthInfo is auth.AuthInfo.
type AuthInfo struct {
	Username string
	Revision uint64
}

var (
	simpleTokenTTL           = 5 * time.Millisecond
	simpleTokenTTLResolution = 1 * time.Millisecond
)

// committed is the indexWaiter of a server whose every index is applied.
func committed(uint64) <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}
