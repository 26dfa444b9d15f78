// Package golog: goroutines that communicate only through the order of their log calls. Go's
// log functions write holding the logger's mutex (log/log.go, (*Logger).output), so a log call
// happens before every later log call of another goroutine: what one goroutine wrote before it
// logged, another may read after it logged later, with no data race (go test -race agrees).
//
// A goroutine learns that the other one has logged through the logger's writer, a recorder
// whose Write runs with the logger's mutex held (it needs no lock of its own); so the order of
// the log calls is the program's, not the timing's. Without the logs, or reading before the
// other goroutine's write, -race reports the race.
package golog

import (
	"log"
	"runtime"
	"sync"
)

var x, sink int

// recorder is the logger's writer: a line of 2 bytes is A's, of 3 bytes B's. Only Write (under
// the logger's mutex) touches sawA and sawB; each goroutine's own Write copies what it saw into
// that goroutine's field.
type recorder struct {
	sawA, sawB   bool
	bSawA, aSawB bool
}

func (r *recorder) Write(p []byte) (int, error) {
	if len(p) == 2 {
		r.sawA = true
		r.aSawB = r.sawB
	} else {
		r.sawB = true
		r.bSawA = r.sawA
	}
	return len(p), nil
}

// handOff: A writes x then logs; B logs until its line comes after A's, then reads x. With
// logB false, B waits on a WaitGroup-free spin of its own and reads x unordered.
func handOff(l *log.Logger, rec *recorder) int {
	x = 0
	var wg sync.WaitGroup
	var got int
	wg.Add(2)
	go func() {
		defer wg.Done()
		x = 1
		l.Print("a")
	}()
	go func() {
		defer wg.Done()
		for {
			l.Print("bb")
			if rec.bSawA {
				break
			}
			runtime.Gosched()
		}
		got = x
	}()
	wg.Wait()
	return got
}

// readFirst: B logs then reads x; A logs until its line comes after B's, then writes x. The
// log order puts B's unlock before A's lock, but B's read after its unlock: a race in Go.
func readFirst(l *log.Logger, rec *recorder) {
	x = 0
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for {
			l.Print("a")
			if rec.aSawB {
				break
			}
			runtime.Gosched()
		}
		x = 1
	}()
	go func() {
		defer wg.Done()
		l.Print("bb")
		sink = x
	}()
	wg.Wait()
}

// noLog: the same two goroutines without logging: nothing orders B's read after A's write.
func noLog() {
	x = 0
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		x = 1
	}()
	go func() {
		defer wg.Done()
		sink = x
	}()
	wg.Wait()
}

// viaStd: A writes x and logs with log.Printf (the standard logger); B, after the WaitGroup of
// A, logs with log.Println and reads x (ordered by the WaitGroup anyway: the std functions run).
func viaStd() int {
	x = 0
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		x = 2
		log.Printf("a wrote %d", 2)
	}()
	wg.Wait()
	log.Println("b", "reads")
	log.Default().Print("done")
	return x
}
