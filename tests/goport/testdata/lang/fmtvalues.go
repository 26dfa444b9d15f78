package lang

import (
	"fmt"
	"time"
)

type fmtPoint struct {
	n int
	s string
}

type fmtNode struct {
	p    fmtPoint
	next *fmtNode
	tags map[string]int
	xs   []fmtPoint
}

type fmtSet map[string][]fmtPoint

type fmtLabel struct{ k int }

func (l *fmtLabel) String() string { return fmt.Sprintf("label-%d", l.k) }

type fmtErr struct{ code int }

func (e fmtErr) Error() string { return fmt.Sprintf("code %d", e.code) }

// FmtComposites: %v, %+v, %d and fmt.Sprint of maps (keys sorted as fmt sorts them), struct
// values, pointers to structs (&{...} at the top, an address inside: the port's fixed stand-in,
// so nothing here prints one), slices of them, a nil map and a nil pointer; a Stringer on the
// pointer receiver is called for *T and not for T, an Error on the value receiver for both.
func FmtComposites() {
	p := fmtPoint{2, "x"}
	var nilMap map[int]bool
	var nilPtr *fmtNode
	n := fmtNode{p: p, tags: map[string]int{"b": 2, "a": 1}, xs: []fmtPoint{{1, "y"}}}
	l := fmtLabel{7}
	result("%s", fmt.Sprintf("%v|%+v|%v|%+v|%d|%v|%v|%v|%+v|%v|%v|%v|%v|%v", p, p, &p, &p, []int{1, 2},
		map[int]int{10: 1, 2: 4, -3: 9}, map[string]bool{"b": true, "a": false}, []fmtPoint{p, {3, "z"}},
		[]*fmtPoint{nil}, nilMap, nilPtr, n, l, &l)+"|"+
		fmt.Sprint(map[fmtPoint]int{{2, "b"}: 1, {1, "z"}: 2, {2, "a"}: 3}, fmtErr{4}, &fmtErr{5}, [2]fmtPoint{}))
}

type dynA struct {
	n    int
	next *dynA
}

type dynB struct {
	s  string
	p  *dynA
	m  map[string]any
	xs []any
}

// FmtDynamic: values that reach fmt through interfaces (result's ...any): the dynamic type
// decides (the package puts dynA in interfaces only as *dynA, dynB only as a value); a pointer
// below the top prints as an address in Go, as the port's fixed stand-in in the port (the
// comparison reads both as one).
func FmtDynamic() {
	result("%v|%+v|%v", &dynA{1, nil}, dynB{"x", &dynA{2, nil}, nil, nil},
		dynB{m: map[string]any{"k": dynB{}, "a": 1}, xs: []any{&dynA{3, nil}, "s"}})
}

// PanicComposite, PanicPointer: panic of a struct value or a pointer prints its type and an
// address (runtime's printpanicval), read as the port's fixed stand-in.
func PanicComposite() { panic(fmtPoint{1, "a"}) }

func PanicPointer() { panic(&dynA{4, nil}) }

type fmtTimes struct {
	Wait  time.Duration
	pause time.Duration
	Label *fmtLabel
	tag   *fmtLabel
	Err   fmtErr
	fault fmtErr
}

// FmtMethods: below the top fmt calls Error/String only where it reaches the value through
// exported fields (a Duration prints 1s there, its nanoseconds in an unexported field; a
// *fmtLabel its String() or an address), and in slice elements and map values; %w prints
// the error's Error().
func FmtMethods() {
	l := &fmtLabel{3}
	result("%s", fmt.Sprintf("%v|%+v|%v|%v", []time.Duration{time.Second, 1500 * time.Millisecond},
		fmtTimes{time.Second, time.Millisecond, l, nil, fmtErr{1}, fmtErr{2}}, map[string]*fmtLabel{"a": l},
		[]fmtErr{{6}})+"|"+fmt.Errorf("w: %w", &fmtErr{9}).Error()+"|"+fmt.Sprint(fmtSet{"b": {{1, "x"}}, "a": nil}))
}
