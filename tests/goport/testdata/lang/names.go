package lang

import "strings"

// Go names that become one Python name: a local must not hide a package-level one
// (helper_fn would hide helperFn, gostrings the strings model, total := total() would read the
// local before it is set).

var counterVal = 5

func helperFn() int { return 1 }

func total() int { return 7 }

func LocalsKeepModuleNames() {
	helper_fn := 2
	counter_val := 3
	total := total()
	gostrings := strings.HasPrefix("ab", "a")
	counterVal++
	result("%d %d %d %d %d %v", helper_fn, helperFn(), counter_val, counterVal, total, gostrings)
}

type cell struct{ n int }

// AssignPhases: Go evaluates the left side's index and pointer operands before any assignment.
func AssignPhases() {
	xs := []int{1, 2, 3}
	i := 0
	i, xs[i] = 1, 9
	m := map[int]int{}
	k := 5
	k, m[k] = 6, 1
	c1, c2 := &cell{1}, &cell{2}
	p := c1
	p, p.n = c2, 100
	result("%v %d %d %d %d %d", xs, i, m[5], k, c1.n, c2.n)
}

var nextCalls int

func nextIndex() int { nextCalls++; return nextCalls - 1 }

// OpAssignOnce: the target of x op= v and x++ is evaluated once.
func OpAssignOnce() {
	xs := []int{10, 20, 30}
	xs[nextIndex()] += 5
	m := map[int]int{}
	m[nextIndex()]++
	cs := []*cell{{1}, {2}, {3}}
	cs[nextIndex()].n *= 7
	result("%v %d %d %d %d %d", xs, m[1], nextCalls, cs[0].n, cs[1].n, cs[2].n)
}

// LigatureLocals: Python reads identifiers NFKC, so the ligature ﬁx is Python's fix.
func LigatureLocals() {
	ﬁx := 1
	fix := 2
	result("%d %d", ﬁx, fix)
}
