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
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def replicas(self) -> int:
        return self.spec.replicas

    def __str__(self) -> str:
        return f"{self.key}(uid={self.uid}, rv={self.resource_version}, replicas={self.spec.replicas}, template={self.spec.template})"


@dataclasses.dataclass(frozen=True)
class DeletedFinalStateUnknown:
    """client-go's tombstone: a Delete whose final state the informer missed (relist after a
    broken watch). ``obj`` is the last state the informer knew."""

    key: str
    obj: RuntimeObject

    def __str__(self) -> str:
        return f"tombstone({self.obj})"


def deletion_handling_meta_namespace_key(obj: RuntimeObject | DeletedFinalStateUnknown) -> str:
    """client-go ``cache.DeletionHandlingMetaNamespaceKeyFunc``: "ns/name"; a tombstone
    carries the key of the object it stands for."""
    return obj.key


def get_spec(obj: RuntimeObject | None) -> ObjectSpec | None:
    """The spec of ``obj``; None for a missing side."""
    return None if obj is None else obj.spec


def is_equal_runtime_objects_spec(old: RuntimeObject | None, new: RuntimeObject | None) -> bool:
    """``runtimeobjects.IsEqualRuntimeObjectsSpec``: DeepEqual of the two specs."""
    return get_spec(old) == get_spec(new)


def get_resource_version(obj: RuntimeObject) -> int:
    """``runtimeobjects.GetResourceVersionFromRuntimeObject``."""
    return obj.resource_version
