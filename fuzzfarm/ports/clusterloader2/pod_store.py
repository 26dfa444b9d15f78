"""Pods of a controlling object and their startup status.

Upstream (kubernetes/perf-tests at 83e45df022ca, ``clusterloader2/pkg/measurement/util``):
one process-wide ``ControlledPodsIndexer`` fed by a pods informer (built once through
``sharedPodIndexerFactory``, a ``sync.Once``); ``NewOwnerReferenceBasedPodStore(indexer, obj)``
lists the pods owned by ``obj``; ``ComputePodsStartupStatus`` counts them. The indexer's store
is client-go's thread-safe store, read under an RWMutex, which is kept here so a list is a
scheduling point as upstream.

Here the pods come from the scripted ``FakeCluster`` (a step function of virtual time per
object uid), so "pods ready at t" is an input.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

from fuzzfarm.gosim import RWMutex, go_func, not_ported, now

from .cluster import FakeCluster
from .objects import RuntimeObject

PENDING, RUNNING, SUCCEEDED = "Pending", "Running", "Succeeded"


@dataclasses.dataclass(frozen=True)
class Pod:
    """A pod as the checker sees it: phase, readiness, and whether its template is current."""

    name: str
    phase: str
    ready: bool
    updated: bool


class PodsIndexer:
    """The shared pods indexer (``measurementutil.ControlledPodsIndexer``): pods by owner uid."""

    @not_ported("stand-in for the pods informer behind ControlledPodsIndexer: it reads the scripted FakeCluster")
    def __init__(self, cluster: FakeCluster):
        self.cluster = cluster
        self.lock = RWMutex("podsIndexer.lock")

    @go_func("util.ControlledPodsIndexer.PodsControlledBy", "controlled_pods_indexer.go:206")
    def pods_for(self, obj: RuntimeObject) -> list[Pod]:
        """The pods owned by ``obj`` (by uid), as the informer cache holds them now."""
        self.lock.rlock()
        try:
            step = self.cluster.pod_counts(obj.uid, now())
            return [Pod(f"{obj.name}-{obj.uid}-{i}", RUNNING if i < step.running else PENDING,
                        i < step.running, i < step.updated)
                    for i in range(step.total)]
        finally:
            self.lock.runlock()


@go_func("sharedPodIndexerFactory.PodsIndexer", "wait_for_controlled_pods.go:80")
def shared_pods_indexer(cluster: FakeCluster) -> tuple[PodsIndexer, None]:
    """``sharedPodIndexerFactory.PodsIndexer``: the one indexer, built on first use."""
    if cluster.shared_pods_indexer is None:
        cluster.shared_pods_indexer = PodsIndexer(cluster)
    return cluster.shared_pods_indexer, None


class OwnerReferenceBasedPodStore:
    """``measurementutil.NewOwnerReferenceBasedPodStore``: the pods of one controlling object."""

    @not_ported("the struct literal NewOwnerReferenceBasedPodStore returns")
    def __init__(self, indexer: PodsIndexer, obj: RuntimeObject):
        self.indexer = indexer
        self.obj = obj

    @go_func("util.OwnerReferenceBasedPodStore.List", "object_store.go:144")
    def list(self) -> list[Pod]:
        return self.indexer.pods_for(self.obj)


@go_func("util.NewOwnerReferenceBasedPodStore", "object_store.go:130")
def new_owner_reference_based_pod_store(indexer: PodsIndexer, obj: RuntimeObject):
    """Returns ``(store, err)`` like upstream."""
    return OwnerReferenceBasedPodStore(indexer, obj), None


@go_func("runtimeobjects.GetIsPodUpdatedPredicateFromRuntimeObject", "runtimeobjects.go:83")
def get_is_pod_updated_predicate(obj: RuntimeObject) -> tuple[Callable[[Pod], bool], None]:
    """``runtimeobjects.GetIsPodUpdatedPredicateFromRuntimeObject``: does the pod run the
    object's current template? Returns ``(predicate, err)``."""
    return (lambda pod: pod.updated), None


@dataclasses.dataclass
class PodsStartupStatus:
    """``measurementutil.PodsStartupStatus`` (the counters the checker uses)."""

    expected: int = 0
    created: int = 0
    running: int = 0
    pending: int = 0
    inactive: int = 0
    running_updated: int = 0

    @go_func("util.PodsStartupStatus.String", "pods.go:69")
    def __str__(self) -> str:
        return (f"Pods: {self.running} out of {self.expected} created, {self.running} running "
                f"({self.running_updated} updated), {self.pending} pending scheduled, {self.inactive} inactive")


@go_func("util.ComputePodsStartupStatus", "pods.go:106")
def compute_pods_startup_status(pods: list[Pod], expected: int,
                                is_pod_updated: Callable[[Pod], bool] | None) -> PodsStartupStatus:
    """``measurementutil.ComputePodsStartupStatus``: a nil predicate counts every pod as updated."""
    st = PodsStartupStatus(expected=expected)
    for p in pods:
        st.created += 1
        if p.phase == RUNNING and p.ready:
            st.running += 1
            if is_pod_updated is None or is_pod_updated(p):
                st.running_updated += 1
        elif p.phase == PENDING:
            st.pending += 1
        elif p.phase == SUCCEEDED:
            st.inactive += 1
    return st
