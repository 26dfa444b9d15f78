package dr02

import (
	"sync"
	"testing"
)

// TestScenario is the Python case's main: two controllers start from one kubeconfig loader and
// each builds its clientset from ClientConfig().
func TestScenario(t *testing.T) {
	loader := NewNonInteractiveDeferredLoadingClientConfig(&ClientConfigLoader{host: "https://10.0.0.1:6443"})
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := 0
	for _, name := range []string{"deployments", "endpoints"} {
		wg.Add(1)
		go func(name string) { // a controller building its clientset: kubernetes.NewForConfig(...)
			defer wg.Done()
			if c, err := loader.ClientConfig(); err == nil && c.Host != "" {
				mu.Lock()
				got++
				mu.Unlock()
			}
		}(name)
	}
	wg.Wait()
	if got != 2 {
		t.Fatalf("%d controllers got a config, want 2", got)
	}
}
