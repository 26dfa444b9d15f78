package slicestruct

// Slices of struct values copy the structs: an append beyond the capacity copies the old
// elements into the new array, copy() copies values into dst's elements (in place: a pointer
// &dst[i] sees them), append(s, t...) copies t's elements, and []T{v} copies v. A slice of
// pointers copies the pointers: both slices reach the same structs.

type cell struct{ n int }

func StructSliceValues() {
	a := []cell{{1}, {2}}
	b := append(a, cell{3}) // beyond cap 2: a new array with copies of a's elements
	a[0].n = 5              // not seen through b
	b[1].n = 6              // not seen through a

	src := []cell{{7}, {8}}
	dst := make([]cell, 2)
	p := &dst[0]
	copy(dst, src)
	src[0].n = 70 // dst holds copies
	dst[1].n = 80 // src untouched

	s := make([]cell, 1, 4)
	q := &s[:2][1]         // the element the next append writes, in place
	s = append(s, cell{4}) // within cap
	q.n = 40               // the same element: seen through s
	viaS := s[1].n
	s = s[:1]
	t := []cell{{9}}
	s = append(s, t...) // within cap: t's element copied into s's array
	t[0].n = 90
	g := append([]cell{{0}}, t...) // beyond cap: copied as well
	t[0].n = 91

	v := cell{10}
	lit := []cell{v}
	v.n = 100

	x := []cell{{1}, {2}, {3}}
	copy(x[1:], x) // overlapping: as if through a temporary

	result("%d %d %d | %d %d | %d %d %d %d %d %d | %d %d %d | %d | %d %d %d", a[0].n, b[0].n, a[1].n,
		src[0].n, dst[0].n, dst[1].n, src[1].n, p.n, viaS, s[1].n, g[1].n, t[0].n, lit[0].n, v.n, x[0].n, x[1].n, x[2].n, len(b))
}

func StructPointerSliceShares() {
	a := []*cell{&cell{1}, &cell{2}}
	b := append(a, &cell{3}) // a new array of the same pointers
	a[0].n = 5               // seen through b
	src := []*cell{&cell{7}}
	dst := make([]*cell, 1)
	copy(dst, src)
	src[0].n = 70 // seen through dst
	t := []*cell{&cell{9}}
	s := append([]*cell{}, t...)
	t[0].n = 90
	v := &cell{10}
	lit := []*cell{v}
	v.n = 100
	result("%d %d %d %d %d", b[0].n, len(b), dst[0].n, s[0].n, lit[0].n)
}

// A grown array's elements past the new length are zero values (growslice clears them), and
// s[:cap(s)] reads them: ints, strings, structs, pointers.
func GrownPadding() {
	ints := append([]int{1}, 2) // cap 2 -> grown
	ints = append(ints, 3)      // len 3, cap 4: one zero past the length
	all := ints[:cap(ints)]
	strs := append(append([]string{"a"}, "b"), "c")
	ss := strs[:cap(strs)]
	cells := append(append([]cell{{1}}, cell{2}), cell{3})
	cs := cells[:cap(cells)]
	ptrs := append(append([]*cell{&cell{1}}, &cell{2}), &cell{3})
	ps := ptrs[:cap(ptrs)]
	result("%d %v | %d %q | %d %d | %d %v", len(all), all, len(ss), ss[len(ss)-1], len(cs), cs[len(cs)-1].n,
		len(ps), ps[len(ps)-1] == nil)
}
