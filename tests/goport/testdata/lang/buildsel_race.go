//go:build race

package lang

// The port stands for `go test -race`, whose build has the race tag on.
func raceTag() string { return "race" }
