// Package generics: the Go the translator handles for issue 31 (clusterbuilder's twin): generic
// functions (one translation per instantiation), struct-keyed maps, multi-value calls assigned
// into interface variables, and the net/http and sort models. Each function the tests call
// either panics with "result: ..." carrying what it computed, or races (or not) as -race says.
package generics

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"

	"example.com/generics/gen"
)

type Cfg struct {
	Name string
	N    int
}

type Sel interface{ String() string }

type eq struct{ v string }

func (e eq) String() string { return e.v }

// --- generic functions ---------------------------------------------------------------------

func Keys[M ~map[K]V, K comparable, V any](m M) []K {
	r := make([]K, 0, len(m))
	for k := range m {
		r = append(r, k)
	}
	return r
}

func Clone[M ~map[K]V, K comparable, V any](m M) M {
	if m == nil {
		return nil
	}
	r := make(M, len(m))
	for k, v := range m {
		r[k] = v
	}
	return r
}

func Deref[T any](ptr *T, def T) T {
	if ptr != nil {
		return *ptr
	}
	return def
}

func AppendIfNotZero[T comparable](a []T, b T) []T {
	if b != *new(T) {
		return append(a, b)
	}
	return a
}

func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func Wrap[T any](x T) []T { return []T{x} }

// Twice instantiates Wrap with its own type parameter: its instances come from Twice's.
func Twice[T any](x T) []T { return append(Wrap(x), Wrap[T](x)...) }

func Set[T any](p *T, v T) { *p = v }

func Zero[T any]() T {
	var z T
	return z
}

// GenericStructValues: T a struct, so Clone's map values and Deref's *ptr are copies.
func GenericStructValues() {
	m := map[string]Cfg{"a": {Name: "a", N: 1}}
	c := Clone(m)
	v := c["a"]
	v.N = 7
	c["a"] = v
	p := &Cfg{Name: "p", N: 2}
	d := Deref(p, Cfg{})
	d.N = 9
	var nilp *Cfg
	z := Deref(nilp, Cfg{Name: "def"})
	var nm map[string]Cfg
	panic(fmt.Sprintf("result: %d %d %d %d %s %v", m["a"].N, c["a"].N, p.N, d.N, z.Name, Clone(nm) == nil))
}

// GenericZeros: *new(T) and var z T for an int, a string, an interface and a pointer.
func GenericZeros() {
	a := AppendIfNotZero([]int{1}, 0)
	a = AppendIfNotZero(a, 2)
	s := AppendIfNotZero([]string{}, "")
	var none Sel
	sels := AppendIfNotZero([]Sel{}, none)
	sels = AppendIfNotZero(sels, Sel(eq{"x"}))
	panic(fmt.Sprintf("result: %d %d %d %d %q %v %v", len(a), a[1], len(s), len(sels), Zero[string](), Zero[*Cfg]() == nil, Zero[Sel]() == nil))
}

// GenericInstances: several instantiations, explicit ones, one made inside another generic
// function, a func-typed parameter, and an instance from another package of the module.
func GenericInstances() {
	ks := Keys(map[string]int{"k": 1})
	ns := Keys[map[int]bool](map[int]bool{3: true})
	lens := Map([]string{"ab", "c"}, func(s string) int { return len(s) })
	tw := Twice(Cfg{Name: "t"})
	tw[0].Name = "changed"
	f := gen.First(gen.Default, "none")
	g := gen.First([]int{}, 5)
	panic(fmt.Sprintf("result: %s %d %d %d %d %s %s %s %d %d", ks[0], ns[0], lens[0], lens[1], len(tw), tw[0].Name, tw[1].Name, f, g, gen.Calls()))
}

// GenericRace: two goroutines store through one pointer via a generic function: a data race.
func GenericRace() {
	x := 0
	var wg sync.WaitGroup
	wg.Add(2)
	for _, i := range []int{1, 2} {
		go func() {
			defer wg.Done()
			Set(&x, i)
		}()
	}
	wg.Wait()
}

// GenericNoRace: the same stores under a mutex: no race.
func GenericNoRace() {
	x := 0
	var mu sync.Mutex
	var wg sync.WaitGroup
	wg.Add(2)
	for _, i := range []int{1, 2} {
		go func() {
			defer wg.Done()
			mu.Lock()
			Set(&x, i)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if x == 0 {
		panic("lost")
	}
}

// --- struct-keyed maps -----------------------------------------------------------------------

type key struct {
	host string
	port int
}

type outer struct {
	k   key
	tag string
}

func StructKeys() {
	m := map[key]int{}
	m[key{"a", 1}] = 1
	m[key{"a", 1}] += 10
	k := key{"b", 2}
	m[k] = 2
	k.port = 3 // the map holds a copy of the key
	_, okOld := m[key{"b", 2}]
	_, okNew := m[k]
	delete(m, key{"a", 1})
	lit := map[outer]string{{key{"h", 1}, "t"}: "x"}
	sum := 0
	for kk, v := range m {
		kk.port = 100 // a copy: the map's key is unchanged
		sum += v
	}
	_, still := m[key{"b", 2}]
	panic(fmt.Sprintf("result: %d %v %v %d %s %v", len(m), okOld, okNew, sum, lit[outer{key{"h", 1}, "t"}], still))
}

// StructKeyRace: two goroutines write one struct-keyed map: Go's map checks (or -race).
func StructKeyRace() {
	m := map[key]int{}
	var wg sync.WaitGroup
	wg.Add(2)
	for _, i := range []int{0, 1} {
		go func() {
			defer wg.Done()
			m[key{"a", i}] = i
		}()
	}
	wg.Wait()
}

// --- multi-value calls assigned into interfaces --------------------------------------------------

type MyErr struct{}

func (*MyErr) Error() string { return "mine" }

func maybe(nilOne bool) (*Cfg, error) {
	if nilOne {
		return nil, nil
	}
	return &Cfg{Name: "c"}, nil
}

func myErr() (int, *MyErr) { return 1, nil }

type names []string

func (n names) String() string { return fmt.Sprint(len(n)) }

func named() (names, error) { return names{"a"}, nil }

func MultiValueIntoInterfaces() {
	var x interface{}
	var err error
	x, err = maybe(true)
	isNil := x == nil
	_, isPtr := x.(*Cfg)
	x, err = maybe(false)
	c, _ := x.(*Cfg)
	var n int
	var e error
	n, e = myErr()
	var s fmt.Stringer
	s, err = named()
	var y interface{}
	y, err2 := maybe(true) // y redeclared: assigned, so converted as by =
	panic(fmt.Sprintf("result: %v %v %v %v %d %v %s %v %v", isNil, isPtr, c.Name, err == nil, n, e != nil, s.String(), y != nil, err2 == nil))
}

// --- net/http and sort -------------------------------------------------------------------------

func clientFor(fail bool) (*http.Client, error) {
	if fail {
		return nil, errors.New("bad tls")
	}
	var rt http.RoundTripper = &http.Transport{}
	return &http.Client{Transport: rt, Timeout: 3 * time.Second}, nil
}

func HTTPClients() {
	var opt interface{}
	var err error
	opt, err = clientFor(true)
	failedNil := opt != nil // a typed nil *http.Client: a non-nil interface
	opt, err = clientFor(false)
	c, _ := clientFor(false)
	var z http.Client
	cp := *c
	cp.Timeout = time.Second
	panic(fmt.Sprintf("result: %v %v %v %d %d %v %v", failedNil, opt != nil, err == nil, c.Timeout, cp.Timeout, z.Transport == nil, c.Transport != nil))
}

// HTTPClientRace: one goroutine sets the Timeout while another reads it: a data race.
func HTTPClientRace() {
	c := &http.Client{}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.Timeout = time.Second }()
	go func() { defer wg.Done(); _ = c.Timeout }()
	wg.Wait()
}

// HTTPClientShared: both goroutines only read the client: no race.
func HTTPClientShared() {
	c, _ := clientFor(false)
	var wg sync.WaitGroup
	wg.Add(2)
	for range 2 {
		go func() { defer wg.Done(); _ = c.Timeout; _ = c.Transport }()
	}
	wg.Wait()
}

func SortStrings() {
	xs := []string{"b", "a", "c", "B"}
	sort.Strings(xs)
	ns := []int{3, 1, 2}
	sort.Ints(ns)
	panic(fmt.Sprintf("result: %s%s%s%s %d%d%d", xs[0], xs[1], xs[2], xs[3], ns[0], ns[1], ns[2]))
}
