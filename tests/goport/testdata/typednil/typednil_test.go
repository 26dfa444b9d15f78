package typednil

import "testing"

func TestTypedNilIsNotNil(t *testing.T) {
	x := Stored(false)
	if x == nil {
		t.Fatal("a nil *conn in an interface is a typed nil, not a nil interface")
	}
	p, ok := x.(*conn)
	if !ok || p != nil {
		t.Fatal("x.(*conn) of a typed nil gives nil, true")
	}
	if Slice() == nil || Map() == nil {
		t.Fatal("a nil slice or map in an interface is not a nil interface")
	}
	if Fresh() == nil {
		t.Fatal("a fresh pointer is not nil")
	}
}
