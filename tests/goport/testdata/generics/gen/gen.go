// Package gen is a package of the module with a generic function and package vars: the
// generics package calls its instances across packages, and its vars must be initialised
// before the test runs (Go initialises an imported package first).
package gen

// Default is read by the importing package's tests.
var Default = []string{"x", "y"}

var firstCalls = map[string]int{}

// First is the first element, or def for an empty slice.
func First[T any](xs []T, def T) T {
	firstCalls["First"]++
	if len(xs) == 0 {
		return def
	}
	return xs[0]
}

// Calls is how often First ran.
func Calls() int { return firstCalls["First"] }
