//go:build fixed

package hc17

// upstream: ovn-org/ovn-kubernetes go-controller/pkg/ovn/policy.go:1184-1240 @2b50338c9798cee601edbda871730de32f47887d
func (oc *Controller) deleteNetworkPolicy(policy *NetworkPolicy) {
	if oc.namespacePolicies[policy.Namespace] == nil ||
		oc.namespacePolicies[policy.Namespace][policy.Name] == nil {
		return
	}
	np := oc.namespacePolicies[policy.Namespace][policy.Name]

	np.Lock()

	// Mark the policy as deleted.
	np.deleted = true

	for range np.ingressPolicies {
		ovnNbctl() // deleteAddressSet
	}
	for range np.egressPolicies {
		ovnNbctl() // deleteAddressSet
	}

	// We should now stop all the go routines.
	// But, we got to give up on np Lock, so that any pending pod events can proceed further, and release their own informer lock
	np.Unlock()
	close(np.stop)
	np.stopWg.Wait()

	np.Lock()
	defer np.Unlock()

	for range np.localPods {
		ovnNbctl() // localPodDelDefaultDeny
	}
	oc.namespacePolicies[policy.Namespace][policy.Name] = nil

	ovnNbctl() // deleteAclsPolicy
}
