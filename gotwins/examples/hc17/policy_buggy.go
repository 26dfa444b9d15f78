//go:build !fixed

package hc17

// upstream: ovn-org/ovn-kubernetes go-controller/pkg/ovn/policy.go:1184-1236 @5d836b6b08c42a87118515e6eb2f08184c8c57a9
func (oc *Controller) deleteNetworkPolicy(policy *NetworkPolicy) {
	if oc.namespacePolicies[policy.Namespace] == nil ||
		oc.namespacePolicies[policy.Namespace][policy.Name] == nil {
		return
	}
	np := oc.namespacePolicies[policy.Namespace][policy.Name]

	np.Lock()
	defer np.Unlock()

	// Mark the policy as deleted.
	np.deleted = true

	for range np.ingressPolicies {
		ovnNbctl() // deleteAddressSet
	}
	for range np.egressPolicies {
		ovnNbctl() // deleteAddressSet
	}

	// We should now stop all the go routines.
	close(np.stop)
	np.stopWg.Wait()

	for range np.localPods {
		ovnNbctl() // localPodDelDefaultDeny
	}
	oc.namespacePolicies[policy.Namespace][policy.Name] = nil

	ovnNbctl() // deleteAclsPolicy
}
