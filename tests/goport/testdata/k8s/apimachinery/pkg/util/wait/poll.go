package wait

import (
	"context"
	"time"
)

// loopUntil: loop.go:37 loopConditionUntilContext.
func loopUntil(ctx context.Context, t pollTimer, immediate, sliding bool, condition ConditionWithContextFunc) error {
	defer t.Stop()
	var tick <-chan time.Time
	done := ctx.Done()
	if !sliding {
		tick = t.C()
	}
	if immediate {
		if ok, err := condition(ctx); err != nil || ok {
			return err
		}
	}
	if sliding {
		tick = t.C()
	}
	for {
		select {
		case <-done:
			return ctx.Err()
		case <-tick:
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if !sliding {
			t.Next()
		}
		if ok, err := condition(ctx); err != nil || ok {
			return err
		}
		if sliding {
			t.Next()
		}
	}
}

// PollUntilContextCancel: poll.go:32.
func PollUntilContextCancel(ctx context.Context, interval time.Duration, immediate bool, condition ConditionWithContextFunc) error {
	return loopUntil(ctx, Backoff{Duration: interval}.timer(), immediate, false, condition)
}

// PollUntilContextTimeout: poll.go:45.
func PollUntilContextTimeout(ctx context.Context, interval, timeout time.Duration, immediate bool, condition ConditionWithContextFunc) error {
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return loopUntil(dctx, Backoff{Duration: interval}.timer(), immediate, false, condition)
}

// ticks: poll.go:276 poller: a goroutine forwarding ticks (dropped when nobody receives) until
// ctx is done or the timeout passes, then closing the channel.
func ticks(interval, timeout time.Duration) func(context.Context) <-chan struct{} {
	return func(ctx context.Context) <-chan struct{} {
		ch := make(chan struct{})
		go func() {
			defer close(ch)
			tick := time.NewTicker(interval)
			defer tick.Stop()
			var after <-chan time.Time
			if timeout != 0 {
				timer := time.NewTimer(timeout)
				after = timer.C
				defer timer.Stop()
			}
			for {
				select {
				case <-tick.C:
					select {
					case ch <- struct{}{}:
					default:
					}
				case <-after:
					return
				case <-ctx.Done():
					return
				}
			}
		}()
		return ch
	}
}

// waitFor: wait.go:205 waitForWithContext.
func waitFor(ctx context.Context, wait func(context.Context) <-chan struct{}, fn ConditionWithContextFunc) error {
	wctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := wait(wctx)
	for {
		select {
		case _, open := <-c:
			ok, err := fn(ctx)
			if err != nil {
				return err
			}
			if ok {
				return nil
			}
			if !open {
				return ErrWaitTimeout
			}
		case <-ctx.Done():
			return ErrWaitTimeout
		}
	}
}

// pollWith: poll.go:243 poll.
func pollWith(ctx context.Context, immediate bool, wait func(context.Context) <-chan struct{}, condition ConditionWithContextFunc) error {
	if immediate {
		done, err := condition(ctx)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
	}
	select {
	case <-ctx.Done():
		return ErrWaitTimeout
	default:
		return waitFor(ctx, wait, condition)
	}
}

// PollImmediateUntil: poll.go:186 (through PollImmediateUntilWithContext, poll.go:199).
func PollImmediateUntil(interval time.Duration, condition ConditionFunc, stopCh <-chan struct{}) error {
	return pollWith(ContextForChannel(stopCh), true, ticks(interval, 0), func(context.Context) (bool, error) { return condition() })
}
