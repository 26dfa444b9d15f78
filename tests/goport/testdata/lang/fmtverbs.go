package lang

import "fmt"

// FmtVerbs: every verb takes its argument; a verb the port did not know (%X, %o, %b, %e) was
// left in the text and shifted each later argument onto the wrong verb. %q quotes as
// strconv.Quote does.
func FmtVerbs() {
	result("%s", fmt.Sprintf("%5d|%-5s|%05.2f|%x|%X|%q|%v|%t|%3v|%o|%b|%e|%E|%.3g|%c|%U|%x|%q", 42, "ab", 3.14159,
		-255, 255, "é\n\t\"\x01", nil, true, 7, 8, 5, 1234.5, 0.5, 1234.5, 233, 233, "hi", "日本"))
}
