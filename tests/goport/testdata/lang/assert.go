package lang

import (
	"errors"
	"fmt"
)

// Type assertions (x.(T), v, ok := x.(T)) and type switches, and the panic of a failing one.

type shape interface{ area() int }

type square struct{ side int }

func (s *square) area() int { return s.side * s.side }

type circle struct{ r int }

func (c *circle) area() int { return 3 * c.r * c.r }

type notFound struct{ key string }

func (e *notFound) Error() string { return "not found: " + e.key }

func lookup(k string) error {
	if k == "" {
		return errors.New("empty key")
	}
	return &notFound{k}
}

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case int:
		return fmt.Sprintf("int %d", x+1)
	case string, bool:
		return fmt.Sprintf("scalar %v", x)
	case shape:
		return fmt.Sprintf("shape %d", x.area())
	default:
		return "other"
	}
}

func TypeAssertions() {
	var s shape = &square{3}
	sq := s.(*square)
	sq.side = 4 // the same object: a pointer in the interface
	_, isCircle := s.(*circle)
	c, ok := s.(*square)
	var v any = 5
	n, isInt := v.(int)
	str, isStr := v.(string)
	var e error = lookup("k")
	nf, isNF := e.(*notFound)
	_, isNF2 := lookup("").(*notFound)
	out := ""
	for _, x := range []any{nil, 1, "a", true, &circle{1}, 2.5} {
		out += describe(x) + ";"
	}
loop:
	for _, x := range []any{1, "stop", 3} {
		switch x.(type) {
		case string:
			break loop
		}
		out += "."
	}
	result("%d %v %d %v %d %v %q %v %s %v %v %s", s.area(), isCircle, c.side, ok, n, isInt, str, isStr, nf.key, isNF, isNF2, out)
}

func FailedAssertionPanics() {
	var v any = "text"
	n := v.(int)
	result("%d", n)
}

func FailedAssertionToPointer() {
	var s shape = &circle{1}
	q := s.(*square)
	result("%d", q.side)
}

func NilAssertionPanics() {
	var s shape
	_ = s.(*square)
}
