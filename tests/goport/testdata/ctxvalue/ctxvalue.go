package ctxvalue

import (
	"context"
	"time"
)

// context.WithValue: keys compare by Go type and value, so two key types never collide.

type userKey struct{}
type idKey int
type otherKey int

func ContextValues() {
	ctx := context.WithValue(context.Background(), userKey{}, "ann")
	ctx = context.WithValue(ctx, idKey(1), "one")
	child, cancel := context.WithCancel(ctx)
	defer cancel()
	u, _ := child.Value(userKey{}).(string)
	id, _ := child.Value(idKey(1)).(string)
	_, other := child.Value(otherKey(1)).(string)
	missing := child.Value(idKey(2)) == nil
	result("%s %s %v %v", u, id, other, missing)
}

// context.WithDeadline on the virtual clock: Done closes at the deadline, Err says why.
func ContextDeadline() {
	start := time.Now()
	ctx, cancel := context.WithDeadline(context.Background(), start.Add(5*time.Millisecond))
	defer cancel()
	d, ok := ctx.Deadline()
	_, none := context.Background().Deadline()
	<-ctx.Done()
	waited := time.Since(start) >= 5*time.Millisecond
	result("%v %v %v %v %v", d.Sub(start) == 5*time.Millisecond, ok, none, waited, ctx.Err() == context.DeadlineExceeded)
}
