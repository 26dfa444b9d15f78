package pointers

import "fmt"

// result ends a test with its values in the panic line, so the translated run must compute
// exactly what Go computes for the outcomes to be equal.
func result(format string, args ...any) {
	panic("result: " + fmt.Sprintf(format, args...))
}
