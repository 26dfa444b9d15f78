package recovers

import (
	"errors"
	"fmt"
)

// recover(): only in a directly deferred call; a recovered function returns its named results
// as the deferred calls left them; runtime errors are runtime.Error values; a re-panic goes on.

func safeDiv(a, b int) (q int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	q = a / b
	return q, nil
}

func helper() any { return recover() } // not called directly by the deferred function: nil

func indirect() (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprintf("%v", r)
		}
	}()
	defer func() {
		if helper() == nil {
			out = "helper got nil"
		}
	}()
	panic("boom")
}

func unnamed() int {
	defer func() { recover() }()
	var s []int
	i := 3
	return s[i]
}

func deferredSetsResult() (n int) {
	defer func() { n *= 2 }()
	return 21
}

var errSentinel = errors.New("sentinel")

func recoverError() (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if ok {
				err = e
			}
		}
	}()
	panic(errSentinel)
}

func Recovers() {
	q, err := safeDiv(7, 2)
	q2, err2 := safeDiv(1, 0)
	result("%d %v %d %v | %s | %d | %d | %v", q, err, q2, err2, indirect(), unnamed(), deferredSetsResult(),
		errors.Is(recoverError(), errSentinel))
}

func Repanics() {
	defer func() {
		r := recover()
		panic(fmt.Sprintf("again: %v", r))
	}()
	panic("first")
}

func PanicInDeferKeepsFirst() {
	defer func() { panic("second") }()
	panic("first")
}
