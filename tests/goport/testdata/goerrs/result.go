package goerrs

import "fmt"

// result ends the run with what it observed: Go and the port are compared by their first line.
func result(format string, args ...any) {
	panic("result: " + fmt.Sprintf(format, args...))
}
