// The Go half of the conformance suite (tests/conformance/README in docs/RUNTIME.md#conformance):
// one program holding every case, built once with -race. `conformance -list` prints the case
// names; `conformance NAME N` runs case NAME N times in this process, printing "=== run i"
// before each run and "=== end" after the last, all on stderr, where Go prints race reports,
// panics and fatal errors, so that each report lands between the markers of its run.
package main

import (
	"fmt"
	"os"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

var cases = map[string]func(){}

// register adds cases under their function names (a case is a func() in package main).
func register(fs ...func()) bool {
	for _, f := range fs {
		name := runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
		cases[strings.TrimPrefix(name, "main.")] = f
	}
	return true
}

// result reports what a run observed (compared with the Python twin's return value).
func result(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "result: "+format+"\n", args...)
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "-list" {
		names := make([]string, 0, len(cases))
		for n := range cases {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Println(strings.Join(names, "\n"))
		return
	}
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: conformance -list | conformance NAME RUNS")
		os.Exit(2)
	}
	f, ok := cases[os.Args[1]]
	n, err := strconv.Atoi(os.Args[2])
	if !ok || err != nil {
		fmt.Fprintf(os.Stderr, "conformance: no case %q or bad run count %q\n", os.Args[1], os.Args[2])
		os.Exit(2)
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(os.Stderr, "=== run %d\n", i)
		f()
	}
	fmt.Fprintln(os.Stderr, "=== end")
}
