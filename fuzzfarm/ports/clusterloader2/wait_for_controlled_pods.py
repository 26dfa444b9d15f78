"""The ``WaitForControlledPodsRunning`` measurement, buggy and fixed.

Upstream: kubernetes/perf-tests ``clusterloader2/pkg/measurement/common/wait_for_controlled_pods.go``

* ``buggy`` = 83e45df022caa7507aa84f5b8af85db2af153c6e, the fix's parent. The checker goroutine creates its own cancel and stores it with
  ``SetCancel`` (goroutine at 619-669), so a checker is reachable from the checker map with a
  nil cancel until that goroutine gets to run. Introduced by PR #2115 (0213beab9349).
* ``fixed`` = 19927c1a477eaebeb004387972def1db75142c10, PR #2220 "Avoid race in subsequent
  changes to the same controller" (merge ce673a95df72): ``waitForRuntimeObject`` creates the
  cancel and stores it in ``o.cancel`` under ``o.lock`` before starting the goroutine
  (618-619, start at 620); the goroutine only defers it (620-670). Same line numbers otherwise.

Line ranges below are for the buggy commit. Go's ``defer`` is ``try/finally`` (or an
``ExitStack`` where defers are conditional), so deferred calls run LIFO on return and while a
panic unwinds; nothing here recovers a panic (docs/ports/clusterloader2.md#p10). ``is_running`` is read and
written without ``w.lock`` except in ``handle_object``, as upstream (P2).

Goroutines: **M** calls ``start``/``gather``/``dispose``; **W** (the queue's one worker) runs
``handle_object`` for every informer event in order; each checker **C** runs
``run_checker``; the informer goroutine delivers events into the queue.
"""

from __future__ import annotations

from contextlib import ExitStack

from fuzzfarm.gosim import Chan, Mutex, Shared, go_func, not_ported, now, since
from fuzzfarm.gosim.context import GoError, background, with_cancel, with_timeout

from .checker_map import CheckerMap
from .cluster import FakeCluster
from .handling_group import Group
from .informer import Informer, start_and_sync
from .object_checker import ObjectChecker, ObjectStatus
from .objects import (RuntimeObject, deletion_handling_meta_namespace_key, get_resource_version,
                      is_equal_runtime_objects_spec)
from .pod_store import get_is_pod_updated_predicate, new_owner_reference_based_pod_store, shared_pods_indexer
from .poll import poll
from .replicas import ConstReplicas, get_replicas_from_runtime_object
from .wait_for_pods import DEFAULT_WAIT_FOR_PODS_INTERVAL, WaitForPodOptions, wait_for_pods
from .worker_queue import WorkerQueue

VARIANTS = ("buggy", "fixed")

DEFAULT_SYNC_TIMEOUT = 60.0
DEFAULT_OPERATION_TIMEOUT = 600.0
CHECK_CONTROLLED_PODS_INTERVAL = 5.0
INFORMER_SYNC_TIMEOUT = 60.0
WAIT_FOR_CONTROLLED_PODS_WORKERS = 1  # one worker keeps the handling order = informer order
NAME = "WaitForControlledPodsRunning"


class WaitForControlledPods:
    """``waitForControlledPodsRunningMeasurement`` (struct 113-137), built as
    ``createWaitForControlledPodsRunningMeasurement`` (104-111) does: the worker queue and its
    worker goroutine exist from construction on, not from ``start``.

    The ``start`` parameters of ``Execute`` are constructor arguments here:
    ``operation_timeout`` (0 = no deadline), ``count_error_margin``,
    ``check_if_pods_are_updated``. ``logs`` collects what upstream logs with klog.

    ``is_running`` and ``op_resource_version`` are plain struct fields that M and W both use,
    so they are race-checked ``Shared`` fields (docs/ports/clusterloader2.md#shared).
    """

    is_running = Shared(False)  # isRunning bool
    op_resource_version = Shared(0)  # opResourceVersion uint64

    @go_func("common.createWaitForControlledPodsRunningMeasurement", "wait_for_controlled_pods.go:104")
    def __init__(self, cluster: FakeCluster, variant: str = "buggy", *, kind: str = "Deployment",
                 operation_timeout: float = DEFAULT_OPERATION_TIMEOUT, count_error_margin: int = 0,
                 check_if_pods_are_updated: bool = True):
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r}; choose one of {', '.join(VARIANTS)}")
        self.variant = variant
        self.cluster = cluster
        self.kind = kind
        self.namespace = cluster.namespace
        self.operation_timeout = operation_timeout
        self.count_error_margin = count_error_margin
        self.check_if_pods_are_updated = check_if_pods_are_updated
        self.stop_ch: Chan | None = None
        self.is_running = False
        self.queue = WorkerQueue(WAIT_FOR_CONTROLLED_PODS_WORKERS)
        self.handling_group = Group("handlingGroup")
        self.lock = Mutex("w.lock")
        self.object_keys: set[str] = set()  # compared and counted, never iterated
        self.op_resource_version = 0
        self.checker_map = CheckerMap()
        self.pods_indexer = None
        self.logs: list[str] = []

    @go_func("waitForControlledPodsRunningMeasurement.String", "wait_for_controlled_pods.go:248")
    def __str__(self) -> str:
        return NAME

    @not_ported("klog: collects the lines upstream logs")
    def log(self, msg: str) -> None:
        self.logs.append(msg)

    # ------------------------------------------------------------------ M: start / gather / dispose
    @go_func("waitForControlledPodsRunningMeasurement.Dispose", "wait_for_controlled_pods.go:235")
    def dispose(self) -> None:
        """``Dispose`` (235-245); ``Execute(stop)`` calls it too."""
        if not self.is_running:
            return
        self.is_running = False
        self.stop_ch.close()
        self.queue.stop()  # :241
        with self.lock:
            self.checker_map.dispose()  # :244

    @go_func("waitForControlledPodsRunningMeasurement.start", "wait_for_controlled_pods.go:252")
    def start(self) -> GoError | None:
        """``start`` (252-285): informer with the enqueueing handler, run until synced."""
        if self.is_running:
            self.log(f"{self}: wait for controlled pods measurement already running")
            return None
        self.is_running = True
        self.stop_ch = Chan(0, name="w.stopCh")
        self.pods_indexer, err = shared_pods_indexer(self.cluster)
        if err is not None:
            return err

        @go_func("waitForControlledPodsRunningMeasurement.start.func1", "wait_for_controlled_pods.go:277")
        def handler(old, new) -> None:  # 277-282: only enqueue
            self.queue.add(lambda: self.handle_object(old, new))

        i = Informer(self.cluster, handler)
        return start_and_sync(i, self.stop_ch, INFORMER_SYNC_TIMEOUT)

    @go_func("waitForControlledPodsRunningMeasurement.gather", "wait_for_controlled_pods.go:287")
    def gather(self, sync_timeout: float = DEFAULT_SYNC_TIMEOUT) -> GoError | None:
        """``gather`` (287-386): wait until the handler caught up with a fresh LIST, wait for
        every checker goroutine, then judge the checkers' statuses."""
        if not self.is_running:
            return GoError(f"metric {self} has not been started")
        object_keys, max_resource_version, err = self.get_object_keys_and_max_version()
        if err is not None:
            return err

        @go_func("waitForControlledPodsRunningMeasurement.gather.func1", "wait_for_controlled_pods.go:313")
        def cond() -> bool:
            with self.lock:
                return self.op_resource_version >= max_resource_version and object_keys == self.object_keys

        err = poll(CHECK_CONTROLLED_PODS_INTERVAL, sync_timeout, cond)
        if err is not None:
            return GoError(f"timed out while waiting for controlled pods: {err}")

        self.handling_group.wait()
        with self.lock:
            number_running = number_deleted = number_timeout = number_failed = 0
            failed_errs: list[str] = []
            timed_out_objects: list[str] = []
            timed_out_pods: list[str] = []
            max_duration = 0.0
            failed_pods: list[str] = []  # upstream returns these beside the error; read as upstream reads them
            for checker in self.checker_map.values():
                status, cerr = checker.get_status()
                # :333-334 read the checker's fields after getStatus released o.lock, so they race
                # with a checker goroutine still running (one started past handlingGroup.Wait, P3(b))
                if checker.duration > max_duration:  # :333
                    max_duration = checker.duration  # :334
                if status == ObjectStatus.RUNNING:
                    number_running += 1
                elif status == ObjectStatus.DELETED:
                    number_deleted += 1
                elif status == ObjectStatus.TIMEOUT:
                    timed_out_objects.append(checker.key)
                    number_timeout += 1
                    timed_out_pods.extend(checker.failed_pods)  # :344
                elif status == ObjectStatus.DELETE_TIMEOUT:
                    timed_out_objects.append(checker.key)
                    number_timeout += 1
                    self.cluster.delete_pod_collection(self.namespace)  # :349 API I/O under w.lock (P7)
                    failed_pods.extend(checker.failed_pods)  # :350
                elif status == ObjectStatus.FAILED:
                    number_failed += 1
                    failed_pods.extend(checker.failed_pods)  # :356
                    if cerr is not None:
                        failed_errs.append(str(cerr))
                else:
                    return GoError(f"got unknown status for {checker.key}: status={status.name}, err={cerr}")
            self.log(f"{self}: running {number_running}, deleted {number_deleted}, "
                     f"timeout: {number_timeout}, failed: {number_failed}")
            if number_timeout > 0:
                return GoError(f"{number_timeout} objects timed out: {self.kind}s: {', '.join(timed_out_objects)}"
                               + (f"; pods not running: {', '.join(timed_out_pods)}" if timed_out_pods else ""))
            if len(object_keys) != number_running:
                return GoError(f"incorrect objects number: {number_running}/{len(object_keys)} "
                               f"{self.kind}s are running with all pods")
            if number_failed > 0:
                return GoError(f"failed objects statuses: {'; '.join(failed_errs)}")
            self.log(f"{self}: {number_running}/{len(object_keys)} {self.kind}s are running with all pods")
            return None

    @go_func("waitForControlledPodsRunningMeasurement.getObjectKeysAndMaxVersion", "wait_for_controlled_pods.go:554")
    def get_object_keys_and_max_version(self):
        """``getObjectKeysAndMaxVersion``: LIST the objects; ``(keys, max_rv, err)``."""
        object_keys: set[str] = set()
        max_resource_version = 0
        for obj in self.cluster.list_objects():
            object_keys.add(deletion_handling_meta_namespace_key(obj))
            max_resource_version = max(max_resource_version, get_resource_version(obj))
        return object_keys, max_resource_version, None

    # ------------------------------------------------------------------ W: event handling
    @go_func("waitForControlledPodsRunningMeasurement.handleObject", "wait_for_controlled_pods.go:410")
    def handle_object(self, old_obj, new_obj) -> None:
        """``handleObject`` (410-456), on the worker goroutine W."""
        if old_obj is not None and not isinstance(old_obj, RuntimeObject):
            self.log(f"{self}: uncastable old object: {old_obj}")
            return
        if new_obj is not None and not isinstance(new_obj, RuntimeObject):
            self.log(f"{self}: uncastable new object: {new_obj}")
            return
        # The lock is taken before the deferred cache update is registered, so that update
        # runs (LIFO) before the unlock.
        with self.lock:
            try:
                if is_equal_runtime_objects_spec(old_obj, new_obj):
                    return  # e.g. a status-only update: only the cache changes
                if not self.is_running:
                    return
                err = self.delete_object_locked(old_obj)  # :450
                if err is not None:
                    self.log(f"{self}: delete checker error: {err}")
                err = self.handle_object_locked(old_obj, new_obj)  # :453
                if err is not None:
                    self.log(f"{self}: create checker error: {err}")
            finally:
                err = self.update_cache_locked(old_obj, new_obj)
                if err is not None:
                    self.log(f"{self}: error when updating cache: {err}")

    @go_func("waitForControlledPodsRunningMeasurement.handleObjectLocked", "wait_for_controlled_pods.go:479")
    def handle_object_locked(self, old_obj: RuntimeObject | None, new_obj: RuntimeObject | None) -> GoError | None:
        """``handleObjectLocked`` (479-495): start a checker for the handled object and put it
        in the checker map, stopping the key's previous checker (``Map.Add``, line 493)."""
        is_obj_deleted = new_obj is None
        handled_obj = old_obj if is_obj_deleted else new_obj
        key = deletion_handling_meta_namespace_key(handled_obj)
        checker, err = self.wait_for_runtime_object(handled_obj, is_obj_deleted, self.operation_timeout)
        if err is not None:
            return GoError(f"waiting for {key} error: {err}")
        self.checker_map.add(key, checker)  # :493
        return None

    @go_func("waitForControlledPodsRunningMeasurement.deleteObjectLocked", "wait_for_controlled_pods.go:497")
    def delete_object_locked(self, obj: RuntimeObject | None) -> GoError | None:
        """``deleteObjectLocked`` (497-507): stop and drop the checker of ``obj``'s key."""
        if obj is None:
            return None
        key = deletion_handling_meta_namespace_key(obj)
        self.checker_map.delete_and_stop(key)  # :505
        return None

    @go_func("waitForControlledPodsRunningMeasurement.updateCacheLocked", "wait_for_controlled_pods.go:509")
    def update_cache_locked(self, old_obj: RuntimeObject | None, new_obj: RuntimeObject | None) -> GoError | None:
        """``updateCacheLocked`` (509-539): the key set and the highest resourceVersion seen."""
        if old_obj is not None:
            self.object_keys.discard(deletion_handling_meta_namespace_key(old_obj))
            self.update_op_resource_version_locked(old_obj)
        if new_obj is not None:
            self.object_keys.add(deletion_handling_meta_namespace_key(new_obj))
            self.update_op_resource_version_locked(new_obj)
        return None

    @go_func("waitForControlledPodsRunningMeasurement.updateOpResourceVersionLocked", "wait_for_controlled_pods.go:541")
    def update_op_resource_version_locked(self, obj: RuntimeObject) -> None:
        """``updateOpResourceVersionLocked``."""
        version = get_resource_version(obj)
        if version > self.op_resource_version:
            self.op_resource_version = version

    @go_func("waitForControlledPodsRunningMeasurement.waitForRuntimeObject", "wait_for_controlled_pods.go:588")
    def wait_for_runtime_object(self, obj: RuntimeObject, is_deleted: bool, operation_timeout: float):
        """``waitForRuntimeObject`` (588-672), on W with ``w.lock`` held: build the checker
        and start its goroutine while holding ``o.lock``. Returns ``(checker, err)``.

        ``fixed`` (19927c1a477e:618-619) creates the cancel and stores it in ``o.cancel``
        here, before the goroutine exists; ``buggy`` leaves ``o.cancel`` nil for the goroutine
        to fill in later.
        """
        ctx = background()
        runtime_object_replicas, err = get_replicas_from_runtime_object(obj)
        if err is not None:
            return None, err
        is_pod_updated = None
        if self.check_if_pods_are_updated:
            is_pod_updated, err = get_is_pod_updated_predicate(obj)
            if err is not None:
                return None, err
        if is_deleted:
            runtime_object_replicas = ConstReplicas(0)
        key = deletion_handling_meta_namespace_key(obj)
        pod_store, err = new_owner_reference_based_pod_store(self.pods_indexer, obj)
        if err is not None:
            return None, GoError(f"failed to create pod store: {err}")

        o = ObjectChecker(key)
        with o.lock:  # deferred unlock: held until return
            cancel = None
            if self.variant == "fixed":
                ctx, cancel = with_cancel(ctx)
                o.cancel = cancel
            self.handling_group.start(
                lambda: self.run_checker(o, ctx, cancel, key, runtime_object_replicas, pod_store,
                                         is_pod_updated, is_deleted, operation_timeout),
                name=f"checker {key}")
            return o, None

    # ------------------------------------------------------------------ C: one checker
    @go_func("waitForControlledPodsRunningMeasurement.waitForRuntimeObject.func1", "wait_for_controlled_pods.go:618")
    def run_checker(self, o: ObjectChecker, ctx, cancel, key: str, runtime_object_replicas, pod_store,
                    is_pod_updated, is_deleted: bool, operation_timeout: float) -> None:
        """The checker goroutine C (buggy 619-669, fixed 620-670): wait for the object's pods
        under the operation timeout, then record the outcome in ``o``.

        ``buggy``: make the cancellable context here and store its cancel with ``set_cancel``
        (blocks on ``o.lock`` while W still holds it): the late write. ``fixed``: ``cancel`` is
        the one W already stored; only defer it.
        """
        with ExitStack() as defers:
            if self.variant == "buggy":
                ctx, cancel = with_cancel(ctx)
                defers.callback(cancel)
                o.set_cancel(cancel)
            else:
                defers.callback(cancel)
            if operation_timeout != 0:
                ctx, cancel = with_timeout(ctx, operation_timeout)
                defers.callback(cancel)
            err = runtime_object_replicas.start(ctx.done())
            if err is not None:
                self.log(f"{key}: error while starting runtimeObjectReplicas: {err}")
                o.err = GoError(f"failed to start runtimeObjectReplicas: {err}")  # without o.lock (P4)
                return
            options = WaitForPodOptions(
                desired_pod_count=runtime_object_replicas.get_replicas(),
                count_error_margin=self.count_error_margin,
                caller_name=str(self),
                wait_for_pods_interval=DEFAULT_WAIT_FOR_PODS_INTERVAL,
                is_pod_updated=is_pod_updated,
            )
            start = now()
            err = wait_for_pods(ctx, pod_store, options)
            with o.lock:
                o.duration = since(start)
                if err is not None:
                    self.log(f"{self}: error for {key}: {err}")
                    o.status = ObjectStatus.FAILED
                    o.err = GoError(f"{key}: {err}")
                    o.failed_pods = list(err.not_ready_pods)
                    if ctx.err() is not None:  # cancelled or past the deadline: both count
                        o.status = ObjectStatus.DELETE_TIMEOUT if is_deleted else ObjectStatus.TIMEOUT
                        self.log(f"{self}: {key} timed out")
                    return
                o.status = ObjectStatus.DELETED if is_deleted else ObjectStatus.RUNNING
