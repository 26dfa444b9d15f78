"""The controlling objects the measurement watches (Deployments, ReplicaSets, ...), reduced to
what ``WaitForControlledPodsRunning`` reads from them.

Upstream reads ``runtime.Object`` values through ``runtimeobjects`` helpers
(kubernetes/perf-tests ``clusterloader2/pkg/measurement/util/runtimeobjects``):
``IsEqualRuntimeObjectsSpec`` deep-compares the whole spec and treats a nil side as a nil spec,
so an Add or a Delete always counts as a spec change (docs/ports/clusterloader2.md#inputs);
``GetResourceVersionFromRuntimeObject`` parses the resourceVersion; client-go's
``DeletionHandlingMetaNamespaceKeyFunc`` gives "ns/name", also for a
``DeletedFinalStateUnknown`` tombstone.
"""

from __future__ import annotations

import dataclasses

from fuzzfarm.gosim import go_func, not_ported


@dataclasses.dataclass(frozen=True)
class ObjectSpec:
    """The spec as a whole: ``replicas`` (spec.replicas / parallelism) and ``template``, a
    generation number standing for the pod template. Compared with ``==`` (DeepEqual)."""

    replicas: int
    template: int = 0


@dataclasses.dataclass(frozen=True)
class RuntimeObject:
    """One version of a controlling object as the informer hands it over.

    ``uid`` tells a re-created object of the same name from its predecessor (its pods are
    found by owner reference, i.e. by uid).
    """

    namespace: str
    name: str
    uid: int
    resource_version: int
    spec: ObjectSpec

    @property
    @go_func("cache.MetaNamespaceKeyFunc", "store.go:104")
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    @not_ported("reads spec.replicas (a field access in Go; GetReplicasFromRuntimeObject uses it)")
    def replicas(self) -> int:
        return self.spec.replicas

    @not_ported("how the port prints an object in scenarios and logs")
    def __str__(self) -> str:
        return f"{self.key}(uid={self.uid}, rv={self.resource_version}, replicas={self.spec.replicas}, template={self.spec.template})"


@dataclasses.dataclass(frozen=True)
class DeletedFinalStateUnknown:
    """client-go's tombstone: a Delete whose final state the informer missed (relist after a
    broken watch). ``obj`` is the last state the informer knew."""

    key: str
    obj: RuntimeObject

    @not_ported("how the port prints a tombstone in scenarios and logs")
    def __str__(self) -> str:
        return f"tombstone({self.obj})"


@go_func("cache.DeletionHandlingMetaNamespaceKeyFunc", "controller.go:294")
def deletion_handling_meta_namespace_key(obj: RuntimeObject | DeletedFinalStateUnknown) -> str:
    """client-go ``cache.DeletionHandlingMetaNamespaceKeyFunc``: "ns/name"; a tombstone
    carries the key of the object it stands for."""
    return obj.key


@go_func("runtimeobjects.GetSpecFromRuntimeObject", "runtimeobjects.go:114")
def get_spec(obj: RuntimeObject | None) -> ObjectSpec | None:
    """The spec of ``obj``; None for a missing side."""
    return None if obj is None else obj.spec


@go_func("runtimeobjects.IsEqualRuntimeObjectsSpec", "runtimeobjects.go:273")
def is_equal_runtime_objects_spec(old: RuntimeObject | None, new: RuntimeObject | None) -> bool:
    """``runtimeobjects.IsEqualRuntimeObjectsSpec``: DeepEqual of the two specs."""
    return get_spec(old) == get_spec(new)


@go_func("runtimeobjects.GetResourceVersionFromRuntimeObject", "runtimeobjects.go:69")
def get_resource_version(obj: RuntimeObject) -> int:
    """``runtimeobjects.GetResourceVersionFromRuntimeObject``."""
    return obj.resource_version
