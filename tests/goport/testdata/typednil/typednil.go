package typednil

// A nil pointer, slice or map put in an interface is a typed nil in Go: the interface is not
// nil, and asserting it back gives the nil pointer with ok true. The port's nil is Python's
// None, which would make every one of them a nil interface: fuzzfarm port puts Go's typed nil
// (rt.TypedNil) at each conversion below that may be nil (tests/goport/test_port.py).

type conn struct{ open bool }

func find(ok bool) *conn {
	if ok {
		return &conn{open: true}
	}
	return nil
}

// Stored returns a maybe-nil *conn as an interface.
func Stored(ok bool) any {
	c := find(ok)
	return c
}

// Slice puts a nil slice in an interface.
func Slice() any {
	var s []int
	return s
}

// Map puts a nil map in an interface.
func Map() any {
	var m map[string]int
	return m
}

// Fresh puts a pointer that cannot be nil in an interface: translated.
func Fresh() any {
	c := &conn{}
	return c
}
