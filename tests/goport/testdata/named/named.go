// Package named: Go's named non-struct types with methods, arrays, struct and array values
// read out of maps, assertions to struct value types, time.Time.IsZero (tests/goport/test_lang.py
// translates it and checks every test ends as `go test -race` ends it).
package named

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

var sink int

// --- a map type with methods (client-go workqueue's set): the receiver shares the map --------

type set map[string]struct{}

func (s set) has(k string) bool {
	_, ok := s[k]
	return ok
}

func (s set) insert(k string) { s[k] = struct{}{} }

func (s set) len() int { return len(s) }

func SetMethods() {
	s := set{}
	s.insert("a")
	t := s // the same map
	t.insert("b")
	if !s.has("b") || s.len() != 2 {
		panic("the set lost an insert")
	}
	var none set
	if none.has("a") || none.len() != 0 {
		panic("a nil set")
	}
	m := make(set)
	m.insert("c")
	if !m.has("c") {
		panic("made set")
	}
}

// Two goroutines insert into one set through value receivers: the same map, a race.
func SetRace() {
	s := set{}
	done := make(chan bool)
	go func() {
		s.insert("a")
		done <- true
	}()
	s.insert("b")
	<-done
}

// --- a channel type with methods, called through an interface (hc20's handlerFunc) --------

type handler interface{ OnAdd(obj interface{}) }

type handlerFunc chan interface{}

func (h handlerFunc) OnAdd(obj interface{}) { h <- obj }

func ChanHandler() {
	ch := make(chan interface{}, 2)
	var h handler = handlerFunc(ch)
	h.OnAdd(7)
	if v := <-ch; v != 7 {
		panic("lost the value")
	}
	hf, ok := h.(handlerFunc)
	if !ok || cap(hf) != 2 {
		panic("assertion to handlerFunc")
	}
	switch x := h.(type) {
	case handlerFunc:
		x <- 8
	default:
		panic("type switch")
	}
	if <-ch != 8 {
		panic("switch value")
	}
	go h.OnAdd(9)
	if <-ch != 9 {
		panic("go through the interface")
	}
}

// --- a slice type with methods, returned as an error (controller-runtime's aggregate) -------

type aggregate []error

func (a aggregate) Error() string { return fmt.Sprintf("%s and %d more", a[0].Error(), len(a)-1) }

func joined(errs []error) error {
	return aggregate(errs)
}

func SliceError() {
	errs := []error{errors.New("a"), errors.New("b")}
	err := joined(errs)
	if err.Error() != "a and 1 more" {
		panic(err.Error())
	}
	agg, ok := err.(aggregate)
	if !ok || len(agg) != 2 {
		panic("assertion to aggregate")
	}
	agg[0] = errors.New("c") // the same backing array
	if errs[0].Error() != "c" {
		panic("not shared")
	}
	if joined(nil) == nil { // a nil aggregate in an interface is a typed nil: not nil
		panic("typed nil")
	}
}

// --- a func type and an int type with methods ----------------------------------------------

type visitor func(int) int

func (v visitor) twice(x int) int { return v(v(x)) }

type twicer interface{ twice(x int) int }

type level int

func (l level) V() int { return int(l) * 10 } // a method named like the box's value

func (l level) String() string {
	if l > 1 {
		return "high"
	}
	return "low"
}

type stringer interface{ String() string }

func FuncAndIntMethods() {
	inc := visitor(func(x int) int { return x + 1 })
	if inc.twice(1) != 3 {
		panic("twice")
	}
	var tw twicer = inc
	if tw.twice(5) != 7 {
		panic("through the interface")
	}
	f := inc.twice // a method value
	if f(0) != 2 {
		panic("method value")
	}
	var s stringer = level(2)
	if s.String() != "high" || level(0).String() != "low" {
		panic("level")
	}
	if l, ok := s.(level); !ok || l != 2 || l.V() != 20 {
		panic("a level out of the interface")
	}
}

// Go panics comparing two interfaces that hold an uncomparable type.
func CompareUncomparable() {
	var a, b interface{} = set{}, set{}
	if a == b {
		sink++
	}
}

// --- arrays: values ------------------------------------------------------------------------

type point struct{ x, y int }

type grid struct {
	cells [3]int
	pts   [2]point
}

func bumpFirst(a [3]int) int {
	a[0] = 42
	return a[0]
}

func ArrayValues() {
	a := [3]int{1, 2, 3}
	b := a // a copy
	b[0] = 9
	if a[0] != 1 || b[0] != 9 || len(a) != 3 {
		panic("an array assignment shared")
	}
	c := [...]string{2: "z"}
	if len(c) != 3 || c[0] != "" || c[2] != "z" {
		panic("keyed literal")
	}
	if a == b {
		panic("==")
	}
	b[0] = 1
	if a != b {
		panic("!=")
	}
	g := grid{cells: a}
	g.cells[1] = 7
	if a[1] != 2 {
		panic("a field shared the array")
	}
	h := g // copies the nested arrays
	h.cells[2] = 5
	h.pts[0].x = 4
	if g.cells[2] != 3 || g.pts[0].x != 0 {
		panic("a struct copy shared its arrays")
	}
	if bumpFirst(a) != 42 || a[0] != 1 {
		panic("passing shared the array")
	}
	s := a[:] // slicing shares
	s[0] = 8
	if a[0] != 8 {
		panic("a slice of the array does not share it")
	}
	sum := 0
	for _, v := range a { // over a copy: the write below is not seen
		a[2] = 100
		sum += v
	}
	if sum != 8+2+3 {
		panic(fmt.Sprint("range over an array read the array: ", sum))
	}
	var z [2]point
	if z[1].y != 0 {
		panic("zero array")
	}
	q := &g.pts[1]
	g.pts = [2]point{{1, 2}, {3, 4}} // written in place: a pointer to an element sees it
	if g.pts[1].y != 4 || q.y != 4 {
		panic("array field assignment")
	}
	n := 0
	for i := range g.pts {
		n += i
	}
	if n != 1 {
		panic("range keys")
	}
}

func ArrayOutOfRange() {
	a := [3]int{}
	i := 5
	sink = a[i]
}

type ring [4]int

func (r ring) sum() int {
	t := 0
	for _, v := range r {
		t += v
	}
	return t
}

func (r ring) bump() ring {
	r[0]++
	return r
}

func ArrayMethods() {
	r := ring{1, 2, 3, 4}
	r2 := r.bump()
	if r[0] != 1 || r2[0] != 2 || r.sum() != 10 {
		panic("array receiver")
	}
}

// Array elements are memory two goroutines race on, element by element.
type counters struct{ n [2]int }

func ArrayElementRace() {
	c := &counters{}
	done := make(chan bool)
	go func() {
		c.n[0]++
		done <- true
	}()
	c.n[0]++
	<-done
}

func ArrayElementsApart() {
	c := &counters{}
	done := make(chan bool)
	go func() {
		c.n[0]++
		done <- true
	}()
	c.n[1]++
	<-done
}

// --- struct and array values out of maps -----------------------------------------------------

type entry struct {
	n    int
	tags [2]string
}

func MapStructValues() {
	m := map[string]entry{"a": {n: 1}}
	v, ok := m["a"]
	v.n = 5 // a copy
	if !ok || m["a"].n != 1 {
		panic("v, ok := m[k] shared the stored struct")
	}
	w, ok2 := m["b"]
	if ok2 || w.n != 0 {
		panic("missing key")
	}
	x := m["a"]
	x.tags[0] = "t"
	if m["a"].tags[0] != "" {
		panic("m[k] shared the stored struct's array")
	}
	m["a"] = v
	if m["a"].n != 5 {
		panic("store")
	}
	arrs := map[int][2]int{1: {1, 2}}
	p, ok3 := arrs[1]
	p[0] = 9
	if !ok3 || arrs[1][0] != 1 {
		panic("v, ok := m[k] shared the stored array")
	}
}

// A goroutine reads a struct out of the map while another writes the map: a race.
func MapStructRace() {
	m := map[string]entry{"a": {n: 1}}
	done := make(chan bool)
	go func() {
		m["a"] = entry{n: 2}
		done <- true
	}()
	if v, ok := m["a"]; ok {
		sink = v.n
	}
	<-done
}

// --- type assertions to struct value types ---------------------------------------------------

type note struct{ text string }

type other struct{ n int }

func StructAssertions() {
	var i interface{} = note{"a"}
	n, ok := i.(note)
	if !ok || n.text != "a" {
		panic("comma-ok")
	}
	n.text = "b"
	if i.(note).text != "a" {
		panic("the interface's copy changed")
	}
	if _, bad := i.(other); bad {
		panic("other")
	}
	switch v := i.(type) {
	case note:
		v.text = "c"
	case other:
		panic("switch")
	}
	if i.(note).text != "a" {
		panic("the type switch's copy")
	}
}

func FailedStructAssertion() {
	var i interface{} = note{"a"}
	sink = i.(other).n
}

// --- the rest: elided &T, aliases, named types without methods, time ----------------------------

type info struct{ name string }

type infos []*info

type handle = *info

type names map[string]int

func Elided() {
	list := []*info{{"a"}, {"b"}}
	p := list[0]
	p.name = "c"
	if list[0].name != "c" {
		panic("elided &T")
	}
	byName := map[string]*info{"x": {"y"}}
	if byName["x"].name != "y" {
		panic("map of elided &T")
	}
	var h handle = list[1]
	if h.name != "b" {
		panic("alias")
	}
	r := make(infos, 2)
	r[0] = h
	if r[1] != nil || r[0].name != "b" {
		panic("named slice")
	}
	m := names{}
	m["a"]++
	if m["a"] != 1 {
		panic("named map")
	}
}

func TimeIsZero() {
	var t time.Time
	if !t.IsZero() {
		panic("zero")
	}
	t = time.Now()
	if t.IsZero() {
		panic("now")
	}
	d := time.Duration(1.5 * float64(time.Millisecond))
	if d != 1500*time.Microsecond {
		panic("duration")
	}
}

// --- typed nils: a nil pointer, slice or map put in an interface is not a nil interface ------

type myErr struct{ msg string }

func (e *myErr) Error() string {
	if e == nil {
		return "nil myErr"
	}
	return e.msg
}

func mayFail(fail bool) error {
	var e *myErr
	if fail {
		e = &myErr{"boom"}
	}
	return e
}

func TypedNils() {
	err := mayFail(false)
	if err == nil {
		panic("a nil *myErr in an error is not a nil error")
	}
	if err.Error() != "nil myErr" {
		panic("a method through a typed nil runs with a nil receiver")
	}
	p, ok := err.(*myErr)
	if !ok || p != nil {
		panic("x.(*T) of a typed nil gives nil, true")
	}
	switch v := err.(type) {
	case nil:
		panic("case nil matched a typed nil")
	case *myErr:
		if v != nil {
			panic("the switch's value")
		}
	}
	if mayFail(false) != err {
		panic("two typed nils of one type are equal")
	}
	if mayFail(true).Error() != "boom" {
		panic("a non-nil one")
	}
	var s []int
	var i interface{} = s
	if i == nil || fmt.Sprint(i) != "[]" {
		panic("a nil slice in an interface")
	}
}

type counter struct{ n int }

func (c *counter) get() int { return c.n }

type getter interface{ get() int }

func find(ok bool) *counter {
	if ok {
		return &counter{1}
	}
	return nil
}

// A method through a typed nil that reads its receiver: Go's nil dereference.
func TypedNilDereference() {
	var g getter = find(false)
	sink = g.get()
}

// Comparing two interfaces holding nil maps of one type: Go panics (maps are not comparable).
func TypedNilMapsCompare() {
	var m1, m2 map[string]int
	var a, b interface{} = m1, m2
	if a == b {
		sink++
	}
}

// --- a named type without methods is its own type in an interface ----------------------------

type status int

func NamedIntInInterface() {
	var a interface{} = status(1)
	var b interface{} = 1
	if a == b {
		panic("status(1) == 1 in interfaces")
	}
	if _, ok := a.(int); ok {
		panic("a status is not an int")
	}
	if s, ok := a.(status); !ok || s != 1 {
		panic("a status")
	}
	if fmt.Sprint(a) != "1" {
		panic("printed")
	}
}

// The panic names the dynamic type: status, not int (one Python int for both).
func FailedNamedIntAssertion() {
	var a interface{} = status(2)
	sink = a.(int)
}

// A *sync.Mutex in an interface is named as Go names it.
func FailedAssertionOfMutex() {
	var x interface{} = &sync.Mutex{}
	sink = x.(int)
}

func (r ring) at(i int) int { return r[i] }

// A panic in a value-receiver method: Go's traceback names it named.ring.at.
func ValueMethodPanics() {
	r := ring{}
	sink = r.at(7)
}

// --- a pointer to non-struct memory in an interface: one Go type, three Python cells ---------

type holder struct{ n int }

func PointerAssertions() {
	n := 1
	var i interface{} = &n
	p, ok := i.(*int)
	if !ok || *p != 1 {
		panic("x.(*int) of a variable's address")
	}
	*p = 2
	if n != 2 {
		panic("the pointer does not share the variable")
	}
	h := &holder{}
	i = &h.n
	if q := i.(*int); q == nil || *q != 0 {
		panic("x.(*int) of a field's address")
	}
	var none *int
	i = none
	if r, ok := i.(*int); !ok || r != nil || i == nil {
		panic("a nil *int in an interface")
	}
}

func FailedPointerAssertion() {
	n := 1
	var i interface{} = &n
	sink = i.(int)
}
