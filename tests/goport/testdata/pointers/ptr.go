package pointers

import (
	"sync"
	"time"
)

// Pointers to non-struct memory: a variable, a parameter, a struct field, a slice element, a
// package var, new(T); *p, *p = v, p == q, nil, pointers passed and stored.

type counter struct {
	n    int
	name string
	ref  *int
}

type holder struct {
	counter // embedded: &h.n is the promoted field
	mu      sync.Mutex
}

var total int

func bump(p *int, by int) { *p += by }

func swapVals(a, b *string) { *a, *b = *b, *a }

func PointerBasics() {
	x := 1
	p := &x
	*p = 2
	bump(&x, 3) // x is 5
	q := &x
	y := 7
	c := &counter{name: "c"}
	c.ref = &y
	*c.ref++
	fp := &c.n
	*fp = 10
	bump(fp, 1)
	xs := []int{1, 2, 3}
	ep := &xs[1]
	*ep = 20
	tp := &total
	*tp = 4
	total++
	np := new(int)
	*np += 6
	var nilp *int
	s1, s2 := "a", "b"
	swapVals(&s1, &s2)
	h := &holder{}
	hp := &h.n
	*hp = 8
	pp := &c // a pointer to a pointer variable
	(*pp).n++
	result("%d %v %v %d %d %d %d %d %d %v %s%s %d %v %v", x, p == q, p == &y, y, c.n, xs[1], total, *np, *tp,
		nilp == nil, s1, s2, h.n, &c.n == fp, &xs[0] == ep)
}

func NilDeref() {
	var p *int
	*p = 1
}

func NilDerefRead() {
	c := &counter{}
	_ = *c.ref + 1
}

// each iteration's variable is its own (Go 1.22): the pointers differ
func RangeAddresses() {
	var ps []*int
	for _, v := range []int{1, 2, 3} {
		ps = append(ps, &v)
	}
	*ps[0] = 9
	result("%d %d %d %v", *ps[0], *ps[1], *ps[2], ps[0] == ps[1])
}

func ClosureAndPointer() {
	x := 0
	inc := func() { x++ }
	p := &x
	inc()
	*p += 10
	inc()
	result("%d", x)
}

func durationOf(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }

func DurationConversion() {
	start := time.Now()
	time.Sleep(durationOf(30))
	d := time.Since(start)
	result("%v", d >= 30*time.Millisecond && d < time.Duration(1)*time.Second)
}

// a write through a pointer races with a direct read of the same field
func PointerFieldRace() {
	c := &counter{}
	p := &c.n
	done := make(chan bool)
	go func() { *p = 1; done <- true }()
	_ = c.n + 1
	<-done
}

// ... and not when the goroutine's write happens before the read
func PointerFieldOrdered() {
	c := &counter{}
	p := &c.n
	done := make(chan bool)
	go func() { *p = 1; done <- true }()
	<-done
	result("%d", c.n)
}

// a pointer to a local, handed to a goroutine: the local's direct read races with the write
func PointerLocalRace() {
	x := 0
	var wg sync.WaitGroup
	wg.Add(1)
	go func(p *int) { defer wg.Done(); *p = 5 }(&x)
	y := x
	wg.Wait()
	_ = y
}

// a slice element written through its pointer, read by index in another goroutine
func PointerElemRace() {
	xs := make([]int, 3)
	p := &xs[2]
	done := make(chan bool)
	go func() { *p = 1; done <- true }()
	sink = xs[2]
	<-done
}

var sink int

// a pointer stored in a struct, written under the lock, read under the lock: no race
func PointerInStructLocked() {
	n := 0
	h := &holder{}
	h.ref = &n
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.mu.Lock()
			*h.ref++
			h.mu.Unlock()
		}()
	}
	wg.Wait()
	result("%d", n)
}

func (c *counter) inc() { c.n++ }

func (c counter) get() int { return c.n }

// (*p).f and (*p).M() of a struct pointer use the struct in place; *p as a value is a copy
func StarStruct() {
	p := &counter{}
	(*p).n = 5
	(*p).inc()
	q := *p
	q.n = 100
	r := &(*p)
	r.n++
	result("%d %d %d %v", p.n, q.n, (*p).get(), r == p)
}

// a pointer to a struct element sees a later assignment of the whole element
func ElemStructPointer() {
	xs := []counter{{n: 1}, {n: 2}}
	p := &xs[1]
	xs[1] = counter{n: 7, name: "x"}
	p.n++
	result("%d %d %s", xs[1].n, p.n, p.name)
}

// a pointer to a struct variable sees a later assignment of the whole variable; so does the
// pointer a pointer-method call took
func StructVarPointer() {
	x := counter{n: 1}
	p := &x
	x = counter{n: 5}
	p.n++
	y := counter{}
	y.inc()
	q := &y
	y = counter{n: 40}
	q.inc()
	result("%d %d %d", x.n, p.n, y.n)
}
