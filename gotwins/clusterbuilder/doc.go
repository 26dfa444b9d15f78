// Package clusterbuilder is the Go twin of fuzzfarm's prow and controller-runtime ports (harness
// `cluster-builder`): prow's KubernetesOptions.BuildClusters starts one goroutine per build
// cluster, each calling controller-runtime v0.17.6's cluster.New with an option that copies one
// shared cluster.Options; cache.New's defaultOpts then writes the shared DefaultNamespaces map
// (cache.go:488) from every goroutine: `fatal error: concurrent map writes` (seed bug 2, prow
// issue #288; buggy prow 24e765300acd, fixed by PR #299 at 50dd168d0bd6).
//
// The racy code keeps upstream's goroutines, locks, maps and statement order: BuildClusters
// (build_clusters_buggy.go / build_clusters_fixed.go: the only files that differ, by PR #299's
// diff; `go test -tags fixed` builds the fixed one), cluster.New (./cluster), cache.New and
// defaultOpts (./cache), the TLS transport cache (./rest). Go needs one package per upstream
// package whose names collide (three `New`s), hence the subpackages. The API servers are
// scripted (rest.Server). Each function names the upstream function it stands for in an
// `// upstream: repo path/file.go:FIRST-LAST @commit` comment.
package clusterbuilder
