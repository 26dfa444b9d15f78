//go:build fixed

package hc04

import (
	"fmt"
	"sync"
)

// Printing of the grouped objects stubbed; the callback is upstream's.
// upstream: helm/helm pkg/kube/client.go:217-322 @33bb88851d48bc80bf713a353db275edd5911adb
func (c *Client) Get(namespace string) (map[string]map[string]*Info, error) {
	objs := make(map[string](map[string]*Info))
	mux := &sync.Mutex{}
	infos, err := c.infos, error(nil) // BuildUnstructured stubbed

	var objPods = make(map[string][]Pod)

	missing := []string{}
	err = perform(infos, func(info *Info) error {
		mux.Lock()
		defer mux.Unlock()
		if err := info.Get(); err != nil {
			missing = append(missing, fmt.Sprintf("%v\t\t%s", info.Kind, info.Name))
			return nil
		}

		vk := info.Version + "/" + info.Kind

		if objs[vk] == nil {
			objs[vk] = make(map[string]*Info)
		}
		objs[vk][info.Name] = info

		objPods, err = c.getSelectRelationPod(info, objPods)
		if err != nil {
			_ = err // upstream logs a warning
		}

		return nil
	})
	if err != nil {
		return nil, err
	}
	return objs, nil
}
