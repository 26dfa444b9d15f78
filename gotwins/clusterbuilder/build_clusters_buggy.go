//go:build !fixed

package clusterbuilder

import (
	"fmt"
	"log"
	"sync"
	"time"

	"fuzzfarm.dev/gotwins/clusterbuilder/cache"
	"fuzzfarm.dev/gotwins/clusterbuilder/client"
	"fuzzfarm.dev/gotwins/clusterbuilder/cluster"
	"fuzzfarm.dev/gotwins/clusterbuilder/rest"
)

// upstream: kubernetes-sigs/prow pkg/flagutil/kubernetes_cluster_clients.go:358-469 @24e765300acd
func (o *KubernetesOptions) BuildClusters(dryRun bool, requiredTestPodVerbs []string, callBack func(), namespace string, opts ...func(*cluster.Options)) (map[string]cluster.Cluster, error) {
	if err := o.resolve(dryRun); err != nil {
		return nil, err
	}

	options := cluster.Options{
		Client: client.Options{
			DryRun: &o.dryRun,
		},
		Cache: cache.Options{
			DefaultNamespaces: map[string]cache.Config{
				namespace: {},
			},
		},
	}
	for _, opt := range opts {
		opt(&options)
	}

	res := map[string]cluster.Cluster{}
	var errs []error
	var lock sync.Mutex
	var threads sync.WaitGroup
	threads.Add(len(o.clusterConfigs))
	for buildClusterName, buildClusterConfig := range o.clusterConfigs {
		// upstream: kubernetes-sigs/prow pkg/flagutil/kubernetes_cluster_clients.go:383-419 @24e765300acd
		go func(name string, config rest.Config) {
			defer threads.Done()
			// This fails if we are unable to connect to the cluster.
			// upstream: kubernetes-sigs/prow pkg/flagutil/kubernetes_cluster_clients.go:389-391 @24e765300acd
			mgr, err := cluster.New(&config, func(opts *cluster.Options) {
				*opts = options
			})
			if err != nil {
				lock.Lock()
				errs = append(errs, fmt.Errorf("failed to construct cluster %s: %w", name, err))
				lock.Unlock()
				return
			}

			// Check to see if we are able to perform actions against pods in
			// the build cluster. The actions are given in requiredTestPodVerbs.
			authzClient, err := NewForConfig(&config)
			if err != nil {
				lock.Lock()
				errs = append(errs, fmt.Errorf("failed to construct authz client for cluster %s: %s", name, err))
				lock.Unlock()
				return
			}
			if err := CheckAuthorizations(authzClient.SelfSubjectAccessReviews(), namespace, requiredTestPodVerbs); err != nil {
				lock.Lock()
				errs = append(errs, fmt.Errorf("failed pod resource authorization check for cluster %s: %w", name, err))
				lock.Unlock()
				return
			}

			lock.Lock()
			res[name] = mgr
			lock.Unlock()
		}(buildClusterName, buildClusterConfig)
	}
	threads.Wait()

	aggregatedErr := NewAggregate(errs)

	if aggregatedErr != nil {
		// Retry the build clusters that failed to be connected initially.
		// upstream: kubernetes-sigs/prow pkg/flagutil/kubernetes_cluster_clients.go:431-464 @24e765300acd
		go func() {
			for {
				for buildClusterName, buildClusterConfig := range o.clusterConfigs {
					// Do not check already-successfully-checked build clusters.
					if _, ok := res[buildClusterName]; ok {
						continue
					}

					// If there are any errors with this (still troublesome)
					// build cluster, keep checking.
					if _, err := cluster.New(&buildClusterConfig, func(o *cluster.Options) {
						*o = options
					}); err != nil {
						continue
					}

					authzClient, err := NewForConfig(&buildClusterConfig)
					if err != nil {
						continue
					}
					if err := CheckAuthorizations(authzClient.SelfSubjectAccessReviews(), namespace, requiredTestPodVerbs); err != nil {
						continue
					}

					log.Printf("build cluster %s that failed to connect initially now worked", buildClusterName)
					callBack()
				}
				// Sleep arbitrarily amount of time
				time.Sleep(5 * time.Second)
			}
		}()
	}
	return res, aggregatedErr
}
