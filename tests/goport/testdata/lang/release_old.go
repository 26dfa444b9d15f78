//go:build !go1.21

package lang

func release() string { return "before go1.21" }
