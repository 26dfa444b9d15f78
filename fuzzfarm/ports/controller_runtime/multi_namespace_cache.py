"""``pkg/cache/multi_namespace_cache.go`` (controller-runtime v0.17.6): ``newMultiNamespaceCache``.

kubernetes-sigs/controller-runtime@v0.17.6 (9557f1031fe4), lines 38-63. It **ranges over the
namespaces map** it is given (:47) - for ``cache.New`` that is ``opts.DefaultNamespaces``,
which in prow's buggy ``BuildClusters`` is the map every cluster shares. Each step of that
range is a Go map-iteration check (``concurrent map iteration and map write``, docs/ports/prow.md#t3).
Building the per-namespace informer caches does no network I/O.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from fuzzfarm.gosim import Map, go_func

GLOBAL_CACHE = "_cluster-scope"
_NAMESPACE_ALL = ""


@dataclasses.dataclass
class MultiNamespaceCache:
    """``multiNamespaceCache``: one informer cache per namespace plus a cluster-scoped one."""

    namespace_to_cache: dict
    scheme: Any
    rest_mapper: Any
    cluster_cache: Any


@go_func("cache.newMultiNamespaceCache", "multi_namespace_cache.go:38")
def new_multi_namespace_cache(new_cache: Callable, scheme: Any, rest_mapper: Any, namespaces: Map,
                              global_config: Any | None) -> MultiNamespaceCache:
    """Build the caches. ``global_config`` None: no cache for cluster-scoped objects (:38-63)."""
    caches: dict = {}  # a map local to this call: nobody else can reach it
    for namespace, config in namespaces.items():  # :47
        caches[namespace] = new_cache(config, namespace)
    cluster_cache = None
    if global_config is not None:
        cluster_cache = new_cache(global_config, _NAMESPACE_ALL)
    return MultiNamespaceCache(caches, scheme, rest_mapper, cluster_cache)
