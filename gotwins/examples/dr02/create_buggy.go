//go:build !fixed

package dr02

// upstream: kubernetes/client-go tools/clientcmd/merged_client_builder.go:62-85 @3ab27431ef50d8ae77afe66593d04d5616cbd448
func (config *DeferredLoadingClientConfig) createClientConfig() (ClientConfig, error) {
	if config.clientConfig == nil {
		config.loadingLock.Lock()
		defer config.loadingLock.Unlock()

		if config.clientConfig == nil {
			mergedConfig, err := config.loader.Load()
			if err != nil {
				return nil, err
			}

			mergedClientConfig := NewNonInteractiveClientConfig(*mergedConfig)

			config.clientConfig = mergedClientConfig
		}
	}

	return config.clientConfig, nil
}
