package gostrings

import (
	"strings"
	"testing"
)

type splitCase struct {
	s, sep string
	n      int
	want   string
}

func TestSplit(t *testing.T) {
	cases := []splitCase{
		{"a,b,c", ",", -1, "###<a><b><c>"},
		{"", ",", -1, "#<>"},
		{"", "", -1, ""},
		{"abc", "", -1, "###<a><b><c>"},
		{"héllo", "", -1, "#####<h><é><l><l><o>"},
		{",a,", ",", -1, "###<><a><>"},
		{"a,b,c", ",", 2, "##<a><b,c>"},
		{"a,b,c", ",", 0, "nil"},
		{"a,b,c", ",", 1, "#<a,b,c>"},
		{"a,b,c", ",", 9, "###<a><b><c>"},
		{"héllo", "", 3, "###<h><é><llo>"},
		{"aXbXc", "X", -1, "###<a><b><c>"},
	}
	for _, c := range cases {
		var got string
		if c.n == -1 {
			got = joined(strings.Split(c.s, c.sep))
		} else {
			got = joined(strings.SplitN(c.s, c.sep, c.n))
		}
		if got != c.want {
			t.Errorf("split %q %q %d: %s, want %s", c.s, c.sep, c.n, got, c.want)
		}
	}
	if strings.Split("", ",") == nil || strings.Split("", "") == nil || strings.Fields("") == nil {
		t.Errorf("Split and Fields never return nil")
	}
	if joined(strings.Fields("  a \t b\n\u00a0c\u2003 ")) != "###<a><b><c>" || joined(strings.Fields("a\x1cb")) != "#<a\x1cb>" {
		t.Errorf("Fields: %s %s", joined(strings.Fields("  a \t b\n\u00a0c\u2003 ")), joined(strings.Fields("a\x1cb")))
	}
	if strings.Join([]string{"a", "b"}, ", ") != "a, b" || strings.Join(nil, ",") != "" {
		t.Errorf("Join")
	}
}

func TestSearchAndTrim(t *testing.T) {
	if strings.Index("héllo", "l") != 3 || strings.Index("abc", "") != 0 || strings.Index("abc", "d") != -1 || strings.Index("日本語", "語") != 6 {
		t.Errorf("Index: %d %d", strings.Index("héllo", "l"), strings.Index("日本語", "語"))
	}
	if !strings.Contains("seafood", "foo") || strings.Contains("seafood", "bar") || !strings.Contains("", "") {
		t.Errorf("Contains")
	}
	if !strings.HasPrefix("prefix", "pre") || strings.HasPrefix("pre", "prefix") || !strings.HasSuffix("a.go", ".go") || strings.HasSuffix("go", "a.go") {
		t.Errorf("HasPrefix/HasSuffix")
	}
	if strings.TrimSpace(" \t x y \n\u00a0") != "x y" || strings.TrimSpace("\x1cx\x1c") != "\x1cx\x1c" || strings.TrimSpace("\u0085x\u3000") != "x" {
		t.Errorf("TrimSpace: %q", strings.TrimSpace("\x1cx\x1c"))
	}
	if strings.TrimPrefix("aab", "a") != "ab" || strings.TrimPrefix("b", "a") != "b" || strings.TrimSuffix("a.go.go", ".go") != "a.go" {
		t.Errorf("TrimPrefix/TrimSuffix")
	}
	if strings.Repeat("ab", 3) != "ababab" || strings.Repeat("x", 0) != "" {
		t.Errorf("Repeat")
	}
	if strings.Replace("oink oink oink", "k", "ky", 2) != "oinky oinky oink" || strings.Replace("oink oink", "oink", "moo", -1) != "moo moo" ||
		strings.Replace("ab", "", "-", -1) != "-a-b-" || strings.Replace("ab", "", "-", 2) != "-a-b" || strings.Replace("ab", "a", "b", 0) != "ab" ||
		strings.ReplaceAll("héé", "é", "e") != "hee" || strings.Replace("é", "", "-", -1) != "-é-" {
		t.Errorf("Replace: %q", strings.Replace("ab", "", "-", 2))
	}
}

func TestCase(t *testing.T) {
	if strings.ToUpper("abc-ß-ǆ") != "ABC-ß-Ǆ" || strings.ToLower("ABC-İ-K") != "abc-i-k" || strings.ToUpper("ﬀ") != "ﬀ" {
		t.Errorf("ToUpper/ToLower: %q %q", strings.ToUpper("abc-ß-ǆ"), strings.ToLower("ABC-İ-K"))
	}
	if !strings.EqualFold("Go", "GO") || !strings.EqualFold("ß", "ẞ") || !strings.EqualFold("k", "K") || strings.EqualFold("i", "İ") ||
		!strings.EqualFold("σ", "ς") || strings.EqualFold("ab", "abc") || !strings.EqualFold("ǅ", "ǆ") {
		t.Errorf("EqualFold")
	}
}

func TestRepeatNegativePanics(t *testing.T) {
	n := -1
	_ = strings.Repeat("x", n)
}

func TestBuilder(t *testing.T) {
	var b strings.Builder
	n, err := b.WriteString("héllo")
	b.WriteRune('世')
	if n != 6 || err != nil || b.Len() != 9 || b.String() != "héllo世" {
		t.Errorf("Builder: %d %q", b.Len(), b.String())
	}
	b.Reset()
	if b.Len() != 0 || b.String() != "" {
		t.Errorf("Reset")
	}
	if sharedBuilder(true) != "abab" {
		t.Errorf("locked")
	}
}

func TestBuilderRace(t *testing.T) {
	sharedBuilder(false)
}

func TestBuilderCopyPanics(t *testing.T) {
	copiedBuilder()
}
