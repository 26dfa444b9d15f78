//go:build !race

package lang

func raceTag() string { return "no race tag" }
