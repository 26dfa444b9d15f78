package conform

import "fmt"

// result ends the run with what it observed, so Go and the port can be compared by their first
// line (the conformance suite's result prints it instead).
func result(format string, args ...any) {
	panic("result: " + fmt.Sprintf(format, args...))
}
