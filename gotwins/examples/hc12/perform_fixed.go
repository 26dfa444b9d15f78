//go:build fixed

package hc12

import "errors"

// upstream: helm/helm pkg/kube/client.go:535-553 @11150cdcc6bb69b62ec88faa523d9ff6727e8be7
func perform(infos ResourceList, fn func(*Info) error) error {
	var result error

	if len(infos) == 0 {
		return ErrNoObjectsVisited
	}

	errs := make(chan error)
	go batchPerform(infos, fn, errs)

	for range infos {
		err := <-errs
		if err != nil {
			result = errors.Join(result, err)
		}
	}

	return result
}
