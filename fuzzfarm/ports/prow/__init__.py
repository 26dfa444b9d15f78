"""prow (kubernetes-sigs/prow) ``pkg/flagutil``: ``BuildClusters`` and friends, ported onto
``fuzzfarm.gosim`` over :mod:`fuzzfarm.ports.controller_runtime` (seed bug 2, prow issue #288).

* :mod:`.kubernetes_cluster_clients` - ``KubernetesOptions``, ``resolve``, ``build_clusters``
  (revisions ``BUGGY`` 24e765300acd and ``FIXED`` 50dd168d0bd6 = PR #299),
  ``check_authorizations``.
* :mod:`.clientgo` - the client-go clients prow builds per context (fake network).
* :mod:`.utilerrors` - apimachinery's error aggregate.
"""
