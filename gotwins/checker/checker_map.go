package checker

// Checker is a generic execution that can be stopped at any time.
type Checker interface {
	Stop()
}

// Map is a map of Checkers (no lock of its own: every caller holds the measurement's lock).
type Map map[string]Checker

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/checker/checker_map.go:28-30 @83e45df022ca
func NewMap() Map {
	return make(map[string]Checker)
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/checker/checker_map.go:33-38 @83e45df022ca
func (cm Map) Dispose() {
	for _, c := range cm {
		c.Stop()
	}
	cm = make(map[string]Checker) // upstream's quirk: rebinding the receiver clears nothing
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/checker/checker_map.go:41-46 @83e45df022ca
func (cm Map) Add(key string, c Checker) {
	if old, exists := cm[key]; exists {
		old.Stop()
	}
	cm[key] = c
}

// upstream: kubernetes/perf-tests clusterloader2/pkg/measurement/util/checker/checker_map.go:49-56 @83e45df022ca
func (cm Map) DeleteAndStop(key string) bool {
	if old, exists := cm[key]; exists {
		old.Stop()
		delete(cm, key)
		return true
	}
	return false
}
