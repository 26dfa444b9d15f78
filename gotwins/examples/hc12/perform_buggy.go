//go:build !fixed

package hc12

// upstream: helm/helm pkg/kube/client.go:534-549 @e007c900ce5f2233c8583565d5ba1b0433b1a213
func perform(infos ResourceList, fn func(*Info) error) error {
	if len(infos) == 0 {
		return ErrNoObjectsVisited
	}

	errs := make(chan error)
	go batchPerform(infos, fn, errs)

	for range infos {
		err := <-errs
		if err != nil {
			return err
		}
	}
	return nil
}
