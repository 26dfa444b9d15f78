// Prints, for every rune Go's unicode package maps (ToUpper, ToLower or SimpleFold differ from the
// rune), "rune upper lower simplefold" in decimal: tests/goport/test_strings_model.py checks
// fuzzfarm/goport/gocase.py against it.
package main

import (
	"bufio"
	"fmt"
	"os"
	"unicode"
)

func main() {
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		u, l, f := unicode.ToUpper(r), unicode.ToLower(r), unicode.SimpleFold(r)
		if u != r || l != r || f != r {
			fmt.Fprintf(w, "%d %d %d %d\n", r, u, l, f)
		}
	}
}
