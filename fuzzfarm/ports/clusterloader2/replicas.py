"""How many pods an object should end up with (``runtimeobjects.ReplicasWatcher``).

Upstream (kubernetes/perf-tests at 83e45df022ca,
``clusterloader2/pkg/measurement/util/runtimeobjects/replicaswatcher.go``): a constant count
(``ConstReplicas``: spec.replicas of an RC/RS/Deployment/StatefulSet, parallelism of a Job, 0
for a deleted object) whose ``Start`` returns at once, or, for a DaemonSet, a node-counting
watcher with its own informer. Only the constant kind is modelled: the checker's
"replicas watcher failed to start" path (o.err written without o.lock, docs/ports/clusterloader2.md#p4) is kept
in the checker body but is unreachable here.
"""

from __future__ import annotations

from fuzzfarm.gosim import Chan, go_func, not_ported

from .objects import RuntimeObject


class ConstReplicas:
    """``runtimeobjects.ConstReplicas``."""

    @not_ported("the struct literal &ConstReplicas{n}")
    def __init__(self, replicas: int):
        self.replicas = replicas

    @go_func("runtimeobjects.ConstReplicas.Start", "replicaswatcher.go:67")
    def start(self, stop_ch: Chan | None):
        """Nothing to watch: returns no error at once."""
        return None

    @go_func("runtimeobjects.ConstReplicas.Replicas", "replicaswatcher.go:63")
    def get_replicas(self) -> int:
        return self.replicas


@go_func("runtimeobjects.GetReplicasFromRuntimeObject", "runtimeobjects.go:151")
def get_replicas_from_runtime_object(obj: RuntimeObject):
    """``runtimeobjects.GetReplicasFromRuntimeObject``: ``(watcher, err)``."""
    return ConstReplicas(obj.replicas), None
