"""A scripted stand-in for the API server and the kubelets the measurement talks to.

What upstream gets from a live cluster, reduced to data on the virtual clock:

* the **watch stream** of the controlling objects: ``WatchEvent`` values, each with the
  virtual time ``at`` at which the API server commits it (the informer delivers it at or after
  that time; docs/ports/clusterloader2.md#inputs);
* the **initial LIST** the informer starts from (``initial``);
* the **pods** of every object, found by owner reference (object ``uid``): a step function of
  virtual time, ``PodStep(at, total, running, updated)``;
* the API calls gather makes: LIST of the objects (``list_objects``) and DeleteCollection of
  pods (``delete_pod_collection``), each a network round trip, i.e. a scheduling point.

``ScriptBuilder`` writes a consistent script (resource versions rise, a Delete refers to the
object's last state, a re-created name gets a fresh uid) and is what harnesses and tests use.
"""

from __future__ import annotations

import dataclasses

from fuzzfarm.gosim import gosched, not_ported, now

from .objects import DeletedFinalStateUnknown, ObjectSpec, RuntimeObject

ADDED, MODIFIED, DELETED = "ADDED", "MODIFIED", "DELETED"


@dataclasses.dataclass(frozen=True)
class WatchEvent:
    """One change committed by the API server at virtual time ``at``.

    ``obj``: the new state (ADDED, MODIFIED), or the final state / a tombstone (DELETED).
    ``old``: for MODIFIED, the state the informer had cached.
    """

    at: float
    type: str
    obj: RuntimeObject | DeletedFinalStateUnknown
    old: RuntimeObject | None = None

    @not_ported("how a scenario prints a watch event")
    def __str__(self) -> str:
        if self.type == MODIFIED:
            kind = "Update(spec)" if self.old.spec != self.obj.spec else "Update(status)"
            return f"t={self.at:g}s {kind} {self.old} -> {self.obj}"
        kind = {ADDED: "Add", DELETED: "Delete"}[self.type]
        return f"t={self.at:g}s {kind} {self.obj}"


@dataclasses.dataclass(frozen=True)
class PodStep:
    """From virtual time ``at`` on, the object has ``total`` pods, ``running`` of them running
    and ready, ``updated`` of the running ones matching the current template."""

    at: float
    total: int
    running: int
    updated: int


class FakeCluster:
    """The scripted cluster. Plain data except ``list_objects`` / ``delete_pod_collection``,
    which must run inside a gosim run (they are API round trips)."""

    @not_ported("scripted API server: holds the script (initial LIST, watch events, pods)")
    def __init__(self, namespace: str = "test", initial=(), events=(), pods: dict | None = None):
        self.namespace = namespace
        self.initial: list[RuntimeObject] = list(initial)
        self.events: list[WatchEvent] = list(events)
        self.pods: dict[int, list[PodStep]] = dict(pods or {})  # uid -> steps sorted by ``at``
        self.pod_collection_deletions = 0
        self.shared_pods_indexer = None  # built once by pod_store.shared_pods_indexer

    @not_ported("scripted API server: the objects that exist at a virtual time")
    def objects_at(self, t: float) -> dict[str, RuntimeObject]:
        """What a LIST at virtual time ``t`` returns, by key."""
        objs = {o.key: o for o in self.initial}
        for ev in self.events:
            if ev.at > t:
                break
            if ev.type == DELETED:
                objs.pop(ev.obj.key, None)
            else:
                objs[ev.obj.key] = ev.obj
        return objs

    @not_ported("scripted API server: answers gather's LIST (a network round trip)")
    def list_objects(self) -> list[RuntimeObject]:
        """LIST of the controlling objects now (``runtimeobjects.ListRuntimeObjectsForKind``)."""
        gosched()  # the request is a network round trip
        objs = self.objects_at(now())
        return [objs[k] for k in sorted(objs)]

    @not_ported("scripted kubelets: an object's pod counts at a virtual time")
    def pod_counts(self, uid: int, t: float) -> PodStep:
        """The pod step in force at virtual time ``t`` for the object ``uid``."""
        cur = PodStep(0.0, 0, 0, 0)
        for step in self.pods.get(uid, ()):
            if step.at > t:
                break
            cur = step
        return cur

    @not_ported("scripted API server: answers a pods DeleteCollection (a network round trip)")
    def delete_pod_collection(self, namespace: str) -> None:
        """Pods DeleteCollection (gather's deleteTimeout path); only counted here."""
        gosched()  # the request is a network round trip
        self.pod_collection_deletions += 1


class ScriptBuilder:
    """Builds a consistent ``FakeCluster`` script, one object change at a time.

    Every change happens at ``at`` (non-decreasing across calls). ``ready_after`` is how long
    after the change the pods settle (running and updated for a create/update, gone for a
    delete); None means never.
    """

    @not_ported("scenario writer for harnesses and tests (no Go counterpart)")
    def __init__(self, namespace: str = "test"):
        self.namespace = namespace
        self.initial: list[RuntimeObject] = []
        self.events: list[WatchEvent] = []
        self.pods: dict[int, list[PodStep]] = {}
        self.current: dict[str, RuntimeObject] = {}
        self.rv = 0
        self.uid = 0
        self.template = 0
        self.last_at = 0.0

    # -- helpers
    @not_ported("scenario writer for harnesses and tests (no Go counterpart)")
    def _next_rv(self) -> int:
        self.rv += 1
        return self.rv

    @not_ported("scenario writer for harnesses and tests (no Go counterpart)")
    def _key(self, name: str) -> str:
        return f"{self.namespace}/{name}"

    @not_ported("scenario writer for harnesses and tests (no Go counterpart)")
    def _pods(self, uid: int, at: float, first: PodStep, ready_after: float | None, settled: PodStep) -> None:
        # A new change supersedes whatever the previous one had scheduled for later.
        steps = [s for s in self.pods.get(uid, []) if s.at <= at]
        steps.append(first)
        if ready_after is not None:
            steps.append(dataclasses.replace(settled, at=at + ready_after))
        self.pods[uid] = steps

    @not_ported("scenario writer for harnesses and tests (no Go counterpart)")
    def _at(self, at: float) -> float:
        if at < self.last_at:
            raise ValueError(f"events must be in time order: {at} < {self.last_at}")
        self.last_at = at
        return at

    @not_ported("scenario writer for harnesses and tests (no Go counterpart)")
    def exists(self, name: str) -> bool:
        return self._key(name) in self.current

    # -- changes
    @not_ported("scenario writer for harnesses and tests (no Go counterpart)")
    def create(self, name: str, replicas: int, *, at: float = 0.0, ready_after: float | None = 0.0,
               initial: bool = False) -> RuntimeObject:
        """Create ``name`` (Add; or part of the initial LIST with ``initial=True``)."""
        key = self._key(name)
        if key in self.current:
            raise ValueError(f"{key} exists; delete it first or use re_add")
        self.uid += 1
        self.template += 1
        at = 0.0 if initial else self._at(at)
        obj = RuntimeObject(self.namespace, name, self.uid, self._next_rv(), ObjectSpec(replicas, self.template))
        self.current[key] = obj
        self._pods(obj.uid, at, PodStep(at, replicas, 0, 0), ready_after, PodStep(0, replicas, replicas, replicas))
        if initial:
            self.initial.append(obj)
        else:
            self.events.append(WatchEvent(at, ADDED, obj))
        return obj

    @not_ported("scenario writer for harnesses and tests (no Go counterpart)")
    def update_spec(self, name: str, replicas: int, *, at: float = 0.0, ready_after: float | None = 0.0) -> RuntimeObject:
        """A spec-changing Update: a new pod template (and replica count)."""
        old = self.current[self._key(name)]
        at = self._at(at)
        self.template += 1
        new = dataclasses.replace(old, resource_version=self._next_rv(), spec=ObjectSpec(replicas, self.template))
        self.current[new.key] = new
        self._pods(new.uid, at, PodStep(at, replicas, 0, 0), ready_after, PodStep(0, replicas, replicas, replicas))
        self.events.append(WatchEvent(at, MODIFIED, new, old))
        return new

    @not_ported("scenario writer for harnesses and tests (no Go counterpart)")
    def update_status(self, name: str, *, at: float = 0.0) -> RuntimeObject:
        """A status-only Update: same spec, new resourceVersion (also what a relist yields)."""
        old = self.current[self._key(name)]
        at = self._at(at)
        new = dataclasses.replace(old, resource_version=self._next_rv())
        self.current[new.key] = new
        self.events.append(WatchEvent(at, MODIFIED, new, old))
        return new

    @not_ported("scenario writer for harnesses and tests (no Go counterpart)")
    def delete(self, name: str, *, at: float = 0.0, ready_after: float | None = 0.0, tombstone: bool = False) -> RuntimeObject:
        """Delete ``name``; its pods disappear ``ready_after`` later. With ``tombstone`` the
        informer sees a ``DeletedFinalStateUnknown`` holding the last state it knew."""
        key = self._key(name)
        old = self.current.pop(key)
        at = self._at(at)
        final = dataclasses.replace(old, resource_version=self._next_rv())
        cur = self.pods.get(old.uid, [PodStep(0, 0, 0, 0)])
        self._pods(old.uid, at, dataclasses.replace([s for s in cur if s.at <= at][-1], at=at), ready_after,
                   PodStep(0, 0, 0, 0))
        obj = DeletedFinalStateUnknown(key, old) if tombstone else final
        self.events.append(WatchEvent(at, DELETED, obj))
        return final

    @not_ported("scenario writer for harnesses and tests (no Go counterpart)")
    def re_add(self, name: str, replicas: int, *, at: float = 0.0, ready_after: float | None = 0.0,
               delete_ready_after: float | None = 0.0) -> RuntimeObject:
        """Delete ``name`` and create it again at once (a new object with the same name)."""
        self.delete(name, at=at, ready_after=delete_ready_after)
        return self.create(name, replicas, at=at, ready_after=ready_after)

    @not_ported("scenario writer for harnesses and tests (no Go counterpart)")
    def build(self) -> FakeCluster:
        return FakeCluster(self.namespace, self.initial, self.events, self.pods)

    @not_ported("scenario writer for harnesses and tests (no Go counterpart)")
    def describe(self) -> list[str]:
        lines = [f"initial {o}" for o in self.initial]
        lines += [str(ev) for ev in self.events]
        return lines
