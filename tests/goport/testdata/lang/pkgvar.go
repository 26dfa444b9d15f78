package lang

import "sync"

// Package-level vars: initialised afresh for every run (as each go test process does), shared
// by the goroutines and race-checked.

var (
	calls    int
	registry = map[string]int{}
	regMu    sync.Mutex
	start    = 5
	limit    = start * 2
)

func register(name string) {
	regMu.Lock()
	defer regMu.Unlock()
	registry[name]++
	calls++
}

func PackageVars() {
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); register("a") }()
	}
	wg.Wait()
	result("%d %d %d", calls, registry["a"], limit)
}

func PackageVarRace() {
	done := make(chan bool)
	go func() { calls++; done <- true }()
	calls++
	<-done
}
