//go:build go1.21

package lang

func release() string { return "go1.21 or later" }
