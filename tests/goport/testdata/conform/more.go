package conform

import (
	"errors"
	"fmt"
	"sync"
)

// Cases of our own for what the translator must get right beyond the runtime: value semantics,
// closures per iteration, defer order, multiple returns, errors, switch, maps.

type point struct{ x, y int }

func (p point) moved(dx int) point { p.x += dx; return p }

func (p *point) move(dx int) { p.x += dx }

func StructValueSemantics() {
	a := point{1, 2}
	b := a
	b.x = 10
	c := &a
	c.move(5)
	d := a.moved(100)
	e := *c
	e.y = 7
	result("%d %d %d %d %d %v", a.x, b.x, d.x, a.y, e.y, a == point{6, 2})
}

func ClosurePerIteration() {
	var fs []func() int
	for _, v := range []int{1, 2, 3} {
		fs = append(fs, func() int { return v * 10 })
	}
	s := 0
	for _, f := range fs {
		s = s*100 + f()
	}
	result("%d", s)
}

var errNotFound = errors.New("not found")

func find(m map[string]int, k string) (int, error) {
	v, ok := m[k]
	if !ok {
		return 0, fmt.Errorf("find %q: %w", k, errNotFound)
	}
	return v, nil
}

func DeferOrderAndErrors() {
	out := ""
	func() {
		for i := range 3 {
			defer func() { out += fmt.Sprintf("%d", i) }()
		}
	}()
	m := map[string]int{"a": 1}
	v, err := find(m, "a")
	_, err2 := find(m, "b")
	result("%s %d %v %v %s", out, v, err == nil, errors.Is(err2, errNotFound), err2.Error())
}

func classify(n int) string {
	switch {
	case n < 0:
		return "neg"
	case n == 0:
		return "zero"
	}
	switch n % 3 {
	case 0:
		return "fizz"
	case 1, 2:
		return "other"
	default:
		return "?"
	}
}

func SwitchAndIntDivision() {
	a, b := -7, 2 // not constants: Go's run-time truncating division
	result("%s %s %s %s %d %d", classify(-1), classify(0), classify(3), classify(4), a/b, a%b)
}

func ConcurrentMapWrites() {
	m := map[int]int{}
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			for j := 0; j < 1000; j++ {
				m[k] = j
			}
		}(i)
	}
	wg.Wait()
}

type mover interface{ moved(dx int) point }

// Copies Go makes that a Python port must not miss: range values, a value receiver called
// through an interface holding a pointer, interface equality, len of a string in bytes.
func CopiesAndInterfaces() {
	ps := []point{{1, 1}, {2, 2}}
	for _, p := range ps {
		p.x = 100
	}
	q := &point{3, 3}
	var m mover = q
	r := m.moved(10)
	n, word := 999, "héllo" // not constants: == and len at run time
	var a, b any = n+1, 1000
	result("%d %d %d %d %v %d", ps[0].x, ps[1].x, q.x, r.x, a == b, len(word))
}

// struct{} values on a done channel.
func EmptyStructChannel() {
	done := make(chan struct{})
	go func() { done <- struct{}{} }()
	<-done
	close(done)
	_, ok := <-done
	result("%v", ok)
}
