//go:build !windows

package lang

// go build's file selection: a GOOS file name suffix, a release tag, a _file.go left out.
func platform() string { return "not windows" }
