package hc16

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestScenario is the Python case's main: user root's token goes idle; when it is due to expire
// (the TTL) a benchmark client logs in and two connections send two requests each, one per
// resolution period; then the auth store is disabled.
func TestScenario(t *testing.T) {
	ts := newTokenProviderSimple(committed)
	ts.enable()
	ts.assignSimpleTokenToUser("root", "idle.1")
	time.Sleep(simpleTokenTTL)
	ts.assignSimpleTokenToUser("bench", "bench.2")
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() { // one client connection: a request per period, each checked by AuthInfoFromCtx
			defer wg.Done()
			for r := 0; r < 2; r++ {
				time.Sleep(simpleTokenTTLResolution)
				ts.info(context.Background(), "bench.2", 0)
			}
		}()
	}
	wg.Wait()
	ts.disable()
}
