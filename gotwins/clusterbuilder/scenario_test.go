package clusterbuilder

import (
	"testing"

	"fuzzfarm.dev/gotwins/clusterbuilder/rest"
)

// TestScenario drives BuildClusters as harnesses/cluster_builder_race.py does: a kubeconfig
// with two healthy build clusters, no caller options (what both prow callers pass), not dry
// run; main calls BuildClusters, which starts one goroutine per cluster and waits for them.
// Buggy: both goroutines' cache.New -> defaultOpts write the one shared DefaultNamespaces map
// (cache.go:488): `go test -race` reports the data race on it; without -race, Go's map checks
// end the process with `fatal error: concurrent map writes` (or `concurrent map iteration and
// map write`) when the two writes overlap. Fixed: every cluster.New gets a map of its own.
func TestScenario(t *testing.T) {
	o := &KubernetesOptions{LoadClusterConfigs: func() (map[string]rest.Config, error) {
		return map[string]rest.Config{ // kube.LoadClusterConfigs: a new map per call
			"build1": {Host: "https://build1", Server: &rest.Server{}},
			"build2": {Host: "https://build2", Server: &rest.Server{}},
		}, nil
	}}
	res, err := o.BuildClusters(false, []string{"get", "create"}, func() {}, "test-pods")
	if err != nil {
		t.Fatalf("BuildClusters: %v", err)
	}
	if len(res) != 2 {
		t.Fatalf("BuildClusters built %d clusters, want 2", len(res))
	}
}
