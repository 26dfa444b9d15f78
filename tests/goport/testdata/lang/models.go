package lang

import "strconv"

// boxLimit is read by a method, which the translator emits with its struct, before _go_init_.
var boxLimit = 2

type box struct{ n int }

func (b *box) full() bool { return b.n >= boxLimit }

func PkgVarInMethod() {
	b := &box{n: 2}
	if !b.full() {
		panic("a method read the package var wrong")
	}
}

// strconv.Atoi accepts a sign and digits only (Python's int() also takes "1_0" and " 1").
func Atoi() {
	n, err := strconv.Atoi("+12")
	_, e2 := strconv.Atoi("1_0")
	_, e3 := strconv.Atoi(" 1")
	big, e4 := strconv.Atoi("99999999999999999999")
	if n != 12 || err != nil || e2 == nil || e3 == nil || e4 == nil || big != 9223372036854775807 {
		panic("Atoi")
	}
	if e2.Error() != `strconv.Atoi: parsing "1_0": invalid syntax` {
		panic(e2.Error())
	}
}
