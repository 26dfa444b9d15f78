package named

import (
	"fmt"
	"time"
)

// A func whose snake_case name is a type's (Status / status): both were `status` in Python,
// and the def replaced the class.
func Status() status { return 3 }

// StatusFuncAndType: the type and the func both usable in one package.
func StatusFuncAndType() {
	var a interface{} = status(2)
	if s, ok := a.(status); !ok || s != 2 || Status() != 3 {
		panic("status")
	}
	panic(fmt.Sprint(Status(), " ", a))
}

// ElidedThroughAlias: an elided &T{...} in a literal of the pointer alias handle (= *info).
func ElidedThroughAlias() {
	hs := []handle{{"a"}, {name: "b"}}
	if hs[0].name != "a" || hs[1].name != "b" {
		panic("elided &info through an alias")
	}
}

// DurationsPrint: fmt prints a time.Duration with its String(), %d its nanoseconds.
func DurationsPrint() {
	d := 1500 * time.Millisecond
	var x interface{} = d
	if _, isInt := x.(int); isInt {
		panic("a Duration is not an int")
	}
	if y, ok := x.(time.Duration); !ok || y != d {
		panic("a Duration")
	}
	if x != interface{}(1500*time.Millisecond) || x == interface{}(1500000000) {
		panic("a Duration in an interface equals the same Duration only, not the int")
	}
	err := fmt.Errorf("waited %v", 10*time.Millisecond)
	panic(fmt.Sprintf("%v|%s|%d|%v|%v|%v|%v|%v|%v|%s", d, 10*time.Millisecond, d, time.Duration(0), 90*time.Minute,
		-2*time.Microsecond, 1234*time.Nanosecond, 4*time.Hour+5*time.Second+time.Millisecond, x, err))
}

// DurationPanics: a Duration as the panic's value prints its String() too.
func DurationPanics() { panic(1500 * time.Millisecond) }

// NestedClosures: Go names a closure in closure F.func2 F.func2.1, F.func2.2 (each closure
// numbers its own); the port named them F.func3, F.func4. g runs as a goroutine, so it is not
// inlined into F (inlining would name k's copy F.func2.func2).
func NestedClosures() {
	f := func() { sink++ }
	f()
	done := make(chan bool)
	g := func() {
		h := func() { sink++ }
		h()
		k := func() { panic("nested") }
		k()
		done <- true
	}
	go g()
	<-done
}
