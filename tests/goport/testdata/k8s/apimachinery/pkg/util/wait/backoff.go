package wait

import (
	"context"
	"time"
)

// Backoff: backoff.go:30.
type Backoff struct {
	Duration time.Duration
	Factor   float64
	Jitter   float64
	Steps    int
	Cap      time.Duration
}

// nextDelay: backoff.go:98 delay. Returns this step's wait, the next base duration, steps left.
func nextDelay(steps int, duration, limit time.Duration, factor, jitter float64) (time.Duration, time.Duration, int) {
	if steps < 1 {
		if jitter > 0 {
			return Jitter(duration, jitter), duration, 0
		}
		return duration, duration, 0
	}
	steps--
	next := duration
	if factor != 0 {
		next = time.Duration(float64(duration) * factor)
		if limit > 0 && next > limit {
			next, steps = limit, 0
		}
	}
	if jitter > 0 {
		duration = Jitter(duration, jitter)
	}
	return duration, next, steps
}

// Step: backoff.go:58.
func (b *Backoff) Step() time.Duration {
	if b == nil {
		return 0
	}
	var d time.Duration
	d, b.Duration, b.Steps = nextDelay(b.Steps, b.Duration, b.Cap, b.Factor, b.Jitter)
	return d
}

// delayFunc: backoff.go:70 DelayFunc.
func (b Backoff) delayFunc() func() time.Duration {
	steps, duration := b.Steps, b.Duration
	return func() time.Duration {
		var d time.Duration
		d, duration, steps = nextDelay(steps, duration, b.Cap, b.Factor, b.Jitter)
		return d
	}
}

// pollTimer: timer.go:30 Timer; timer returns backoff.go:87 Timer's choice.
type pollTimer interface {
	C() <-chan time.Time
	Next()
	Stop()
}

func (b Backoff) timer() pollTimer {
	if b.Steps > 1 || b.Jitter != 0 {
		return &varTimer{fn: b.delayFunc()}
	}
	if b.Duration > 0 {
		return &tickTimer{interval: b.Duration}
	}
	ch := make(chan time.Time)
	close(ch)
	return closedTimer{ch}
}

// closedTimer: timer.go:44 noopTimer.
type closedTimer struct{ ch chan time.Time }

func (t closedTimer) C() <-chan time.Time { return t.ch }
func (closedTimer) Next()                 {}
func (closedTimer) Stop()                 {}

// varTimer: timer.go:62 variableTimer.
type varTimer struct {
	fn func() time.Duration
	t  *time.Timer
}

func (v *varTimer) C() <-chan time.Time {
	if v.t == nil {
		v.t = time.NewTimer(v.fn())
	}
	return v.t.C
}
func (v *varTimer) Next() {
	if v.t != nil {
		v.t.Reset(v.fn())
	}
}
func (v *varTimer) Stop() {
	if v.t != nil {
		v.t.Stop()
		v.t = nil
	}
}

// tickTimer: timer.go:90 fixedTimer.
type tickTimer struct {
	interval time.Duration
	t        *time.Ticker
}

func (f *tickTimer) C() <-chan time.Time {
	if f.t == nil {
		f.t = time.NewTicker(f.interval)
	}
	return f.t.C
}
func (f *tickTimer) Next() {}
func (f *tickTimer) Stop() {
	if f.t != nil {
		f.t.Stop()
		f.t = nil
	}
}

// jitterTimer: backoff.go:411 jitteredBackoffManagerImpl (one timer, reset on each Backoff).
type jitterTimer struct {
	period time.Duration
	factor float64
	t      *time.Timer
}

func (j *jitterTimer) backoff() *time.Timer {
	d := j.period
	if j.factor > 0.0 {
		d = Jitter(j.period, j.factor)
	}
	if j.t == nil {
		j.t = time.NewTimer(d)
	} else {
		j.t.Reset(d)
	}
	return j.t
}

// backoffUntil: backoff.go:240 BackoffUntilWithContext.
func backoffUntil(ctx context.Context, f func(context.Context), bm *jitterTimer, sliding bool) {
	var t *time.Timer
	for {
		select {
		case <-ctx.Done():
			return
		default:
		}
		if !sliding {
			t = bm.backoff()
		}
		f(ctx)
		if sliding {
			t = bm.backoff()
		}
		select {
		case <-ctx.Done():
			if !t.Stop() {
				<-t.C
			}
			return
		case <-t.C:
		}
	}
}

// JitterUntil: backoff.go:209.
func JitterUntil(f func(), period time.Duration, jitterFactor float64, sliding bool, stopCh <-chan struct{}) {
	backoffUntil(ContextForChannel(stopCh), func(context.Context) { f() }, &jitterTimer{period: period, factor: jitterFactor}, sliding)
}

// JitterUntilWithContext: backoff.go:222.
func JitterUntilWithContext(ctx context.Context, f func(context.Context), period time.Duration, jitterFactor float64, sliding bool) {
	backoffUntil(ctx, f, &jitterTimer{period: period, factor: jitterFactor}, sliding)
}

// Until: backoff.go:162; UntilWithContext: :171; NonSlidingUntil: :183.
func Until(f func(), period time.Duration, stopCh <-chan struct{}) {
	JitterUntil(f, period, 0.0, true, stopCh)
}
func UntilWithContext(ctx context.Context, f func(context.Context), period time.Duration) {
	JitterUntilWithContext(ctx, f, period, 0.0, true)
}
func NonSlidingUntil(f func(), period time.Duration, stopCh <-chan struct{}) {
	JitterUntil(f, period, 0.0, false, stopCh)
}

// ExponentialBackoff: backoff.go:475.
func ExponentialBackoff(backoff Backoff, condition ConditionFunc) error {
	for backoff.Steps > 0 {
		if ok, err := condition(); err != nil || ok {
			return err
		}
		if backoff.Steps == 1 {
			break
		}
		time.Sleep(backoff.Step())
	}
	return ErrWaitTimeout
}
