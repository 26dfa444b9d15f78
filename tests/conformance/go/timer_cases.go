package main

// Timer cases run under both timer semantics (docs/RUNTIME.md#go-version): Go 1.27 (channels
// synchronous since 1.23) and Go 1.26 with GODEBUG=asynctimerchan=1 (Go <= 1.22: a 1-buffered
// channel whose sent value survives Stop and Reset).

import "time"

var _ = register(TimerResetAfterFireNotReceived, TimerStopTwiceAfterFire, TimerLenCap, TickerLenCap,
	TickerStopDrains, TickerResetDrains, AfterFuncStop, AfterFuncStopAfterRun, AfterInSelect,
	BackoffTimerZeroReset)

// staleOr tells a value received from a timer channel sent before `at` (stale) from a later one.
func staleOr(v, at time.Time) string {
	if v.Before(at) {
		return "stale"
	}
	return "fresh"
}

// Go 1.23: Reset drains the unreceived value and returns true. fresh: the hour timer fired
// (a goroutine an hour slow; gosim's strategy may fire a timer early), which Go does not show.
func TimerResetAfterFireNotReceived() {
	t := time.NewTimer(time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	at := time.Now()
	r := t.Reset(time.Hour)
	select {
	case v := <-t.C:
		result("%v %s", r, staleOr(v, at))
	default:
		result("%v none", r)
	}
}

func TimerStopTwiceAfterFire() {
	t := time.NewTimer(time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	a := t.Stop()
	b := t.Stop()
	result("%v %v", a, b)
}

// runtime/chan.go chanlen/chancap: a timer channel presents as unbuffered since Go 1.23.
func TimerLenCap() {
	t := time.NewTimer(time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	result("%d %d", len(t.C), cap(t.C))
}

func TickerLenCap() {
	t := time.NewTicker(time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	n, c := len(t.C), cap(t.C)
	t.Stop()
	result("%d %d", n, c)
}

func TickerStopDrains() {
	t := time.NewTicker(time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	at := time.Now()
	t.Stop()
	select {
	case v := <-t.C:
		result(staleOr(v, at))
	default:
		result("none")
	}
}

func TickerResetDrains() {
	t := time.NewTicker(time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	at := time.Now()
	t.Reset(time.Hour)
	select {
	case v := <-t.C:
		result(staleOr(v, at))
	default:
		result("none")
	}
	t.Stop()
}

// An AfterFunc timer has no channel: Stop is the same under both semantics.
func AfterFuncStop() {
	f := time.AfterFunc(time.Hour, func() {})
	a := f.Stop()
	b := f.Stop()
	result("%v %v", a, b)
}

func AfterFuncStopAfterRun() {
	done := make(chan bool)
	f := time.AfterFunc(time.Millisecond, func() { close(done) })
	<-done
	result("%v", f.Stop())
}

func AfterInSelect() {
	ch := make(chan int)
	select {
	case <-ch:
		result("ch")
	case <-time.After(time.Millisecond):
		result("timeout")
	}
}

// The shape of a backoff manager (k8s.io/apimachinery/pkg/util/wait) whose timer starts as
// NewTimer(0) and whose next backoff Resets it without draining it: under Go <= 1.22 timers
// the zero timer's unreceived value is still in the channel, so the wait for the next backoff
// returns at once with the value sent before the Reset (stale); Go 1.23's Reset drains it and
// the wait lasts the backoff.
func BackoffTimerZeroReset() {
	t := time.NewTimer(0)
	time.Sleep(time.Millisecond)
	start := time.Now()
	t.Reset(20 * time.Millisecond)
	v := <-t.C
	if v.Before(start) {
		result("stale")
	} else {
		result("waited")
	}
}
