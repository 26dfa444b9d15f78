package lang

// IntWrap: a sized integer's arithmetic and conversions wrap at its width, as Go's do (a
// Python int does not: uint32 0 - 1 was -1, uint8(300) 300).
func IntWrap() {
	var a uint16 = 65535
	a += 2
	var b int32 = -2147483648
	b = -b
	var c uint64
	c--
	var d uint8 = 0x0f
	d = ^d
	e := uint32(1)
	e <<= 33
	var f int8 = -128
	f--
	var g uint = 3
	g -= 5
	x := 300
	h := byte(x)
	i := int8(x)
	var j uint32 = 1 << 31
	j *= 2
	// printed as int and bool: a sized integer put in an interface would make lang's type
	// assertions ambiguous (one Python int)
	result("%d %d %v %d %d %d %v %d %d %d", int(a), int(b), c == 1<<64-1, int(d), int(e), int(f), g == 1<<64-2,
		int(h), int(i), int(j))
}
