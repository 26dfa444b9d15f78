package lang

import "strconv"

// Slice expressions and append share the backing array exactly as Go does (capacity growth
// included), copy, and the variadic slice of f(xs...) is the caller's.

func setFirst(xs ...int) {
	if len(xs) > 0 {
		xs[0] = 100
	}
}

func count(xs ...int) (int, bool) { return len(xs), xs == nil }

type pt struct{ x int }

func SlicesAlias() {
	a := make([]int, 3, 10)
	b := a[1:2]
	b = append(b, 7) // within a's capacity: writes a[2]
	c := a[:2:2]
	c = append(c, 9) // capacity 2: a new array, a is untouched
	c[0] = -1
	s := []int{1, 2, 3}
	t := s[1:]
	t[0] = 20 // shared
	var grown []int
	caps := ""
	for i := 0; i < 20; i++ {
		grown = append(grown, i)
		caps += strconv.Itoa(cap(grown)) + ","
	}
	var ss []string
	for i := 0; i < 5; i++ {
		ss = append(ss, "x")
	}
	var ps []pt
	for i := 0; i < 3; i++ {
		ps = append(ps, pt{i})
	}
	x := []int{1, 2, 3, 4}
	n := copy(x[1:], x) // overlapping
	setFirst(s...)
	k, isNil := count()
	k2, _ := count(1, 2)
	e := s[len(s):]
	var none []int
	five := append(none, 1, 2, 3, 4, 5) // 40 bytes: the 48-byte size class, capacity 6
	result("%v %v %v %d %d %v %v %s %d %d %v %d %v %d %d %v %d %d", a, b, c, len(c), cap(c), s, t, caps, cap(ss), cap(ps), x, n,
		isNil, k, k2, len(e) == 0, cap(b), cap(five))
}

func SliceOutOfRange() {
	s := make([]int, 2, 4)
	hi := 5
	_ = s[1:hi]
}

func SliceInverted() {
	s := make([]int, 2, 4)
	lo, hi := 3, 2
	_ = s[lo:hi]
}

// Two goroutines append to one slice with spare capacity: both write the same element.
func AppendSharedRace() {
	base := make([]int, 0, 4)
	done := make(chan bool)
	go func() { _ = append(base, 1); done <- true }()
	_ = append(base, 2)
	<-done
}

// append(x, nil...) appends nothing; append([]T(nil), s...) copies s (hc15's existingProvisions).
func AppendNilSpread() {
	var none []int
	a := append([]int{1}, none...)
	m := map[string][]int{}
	b := append([]int(nil), m["missing"]...)
	c := append([]int(nil), a...)
	c[0] = 9
	if len(a) != 1 || a[0] != 1 || b != nil || len(c) != 1 {
		panic("append of a nil spread")
	}
}
