//go:build fixed

package dr02

// upstream: kubernetes/client-go tools/clientcmd/merged_client_builder.go:62-80 @18c1ef0354fe489b5d9a58088676f854be243aa2
func (config *DeferredLoadingClientConfig) createClientConfig() (ClientConfig, error) {
	config.loadingLock.Lock()
	defer config.loadingLock.Unlock()

	if config.clientConfig != nil {
		return config.clientConfig, nil
	}
	mergedConfig, err := config.loader.Load()
	if err != nil {
		return nil, err
	}

	config.clientConfig = NewNonInteractiveClientConfig(*mergedConfig)
	return config.clientConfig, nil
}
