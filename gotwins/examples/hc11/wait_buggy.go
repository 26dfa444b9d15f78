//go:build !fixed

package hc11

import "time"

// upstream: kubernetes/apimachinery pkg/util/wait/wait.go:289-291 @1b0702fe2927f82126da9c2ecf567f14676f6072
func PollUntil(interval time.Duration, condition ConditionFunc, stopCh <-chan struct{}) error {
	return WaitFor(poller(interval, 0), condition, stopCh)
}
