// Package checker is the Go twin of fuzzfarm's clusterloader2 port (harness `checker`): the
// WaitForControlledPodsRunning measurement of kubernetes/perf-tests, whose objectChecker.Stop
// calls a nil cancel (seed bug 1; buggy 83e45df022ca, fixed by PR #2220 at 19927c1a477e).
//
// The racy code keeps upstream's goroutines, locks, channels, maps and statement order: the
// measurement (Dispose, start, gather, handleObject, handleObjectLocked, deleteObjectLocked,
// waitForRuntimeObject and its checker goroutine), objectChecker, checker.Map, the worker
// queue and client-go's workqueue.Type under it, and apimachinery's wait.Group. The API
// server, the informer's list/watch machinery, pods and replicas are stubs over a scripted
// cluster (fake_cluster.go). Each function names the upstream function it stands for in an
// `// upstream: repo path/file.go:FIRST-LAST @commit` comment.
//
// Buggy and fixed differ only by PR #2220's diff: wait_for_runtime_object_buggy.go (the
// default build) and wait_for_runtime_object_fixed.go (`go test -tags fixed`).
//
// Durations are upstream's in units of `unit` (a second upstream; a millisecond here, so a
// scenario of minutes runs in well under a second): the bug's window does not depend on them.
package checker

import "time"

// unit stands for upstream's time.Second.
const unit = time.Millisecond
