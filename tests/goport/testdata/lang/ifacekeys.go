package lang

import "fmt"

type ikey struct {
	a int
	b string
}

type iref struct{ n int }

type iname struct{ s string }

func (n iname) String() string { return n.s }

// IfaceKeys: a map keyed by an interface compares a struct key by its dynamic type and fields
// (two equal ikey values are one key; an ikey and an iname with the same fields are not), a
// pointer key by address; the key put in through an interface variable, a literal, an index and
// delete; ranging gives the struct back.
func IfaceKeys() {
	m := map[any]int{ikey{1, "x"}: 1}
	var k any = ikey{1, "x"}
	m[k] += 10
	m[ikey{2, "y"}] = 2
	p, q := &iref{1}, &iref{1}
	m[p] = 3
	m[q] = 4
	_, hit := m[ikey{2, "y"}]
	delete(m, any(ikey{2, "y"}))
	_, gone := m[ikey{2, "y"}]
	s := map[fmt.Stringer]int{}
	s[iname{"a"}]++
	var st fmt.Stringer = iname{"a"}
	s[st]++
	sum := 0
	for key, v := range m {
		if kk, ok := key.(ikey); ok {
			sum += kk.a * 100
		}
		sum += v
	}
	result("%d %v %v %d %d %d", len(m), hit, gone, m[ikey{1, "x"}], s[iname{"a"}], sum)
}
