package lang

import "fmt"

// Labelled break and continue, break inside switch and select cases, fallthrough.

func LabelledLoops() {
	out := ""
outer:
	for i := 0; i < 4; i++ {
		for j := range 4 {
			if j == 2 {
				continue outer // the three-clause post statement still runs
			}
			if i == 3 {
				break outer
			}
			out += fmt.Sprintf("%d%d ", i, j)
		}
		out += "x" // never reached: every inner loop continues outer
	}
	n := 0
rows:
	for _, row := range [][]int{{1, 2}, {3, -1, 4}, {5}} {
		for _, v := range row {
			switch {
			case v < 0:
				continue rows
			case v > 4:
				break rows
			}
			n += v
		}
	}
	result("%s| %d", out, n)
}

func BreakInSwitchAndSelect() {
	out := ""
	for i := 0; i < 3; i++ {
		switch i {
		case 1:
			out += "a"
			if i == 1 {
				break // leaves the switch only
			}
			out += "never"
		default:
			out += "d"
		}
		out += fmt.Sprint(i)
	}
	ch := make(chan int, 1)
	ch <- 1
	for k := 0; k < 2; k++ {
		select {
		case v := <-ch:
			if v == 1 {
				break
			}
			out += "never"
		default:
			out += "e"
		}
		out += "s"
	}
loop:
	for {
		select {
		case <-ch:
		default:
			break loop
		}
	}
	result("%s", out)
}

func Fallthrough() {
	out := ""
	for i := range 5 {
		switch i {
		case 0:
			out += "z"
			fallthrough
		case 1:
			out += "o"
		default:
			out += "d"
			fallthrough
		case 3:
			out += "t"
		}
		out += "|"
	}
	result("%s", out)
}
