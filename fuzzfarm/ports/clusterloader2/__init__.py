"""clusterloader2 ``WaitForControlledPodsRunning`` (kubernetes/perf-tests), ported onto gosim.

Seed bug 1: a nil ``cancel`` called in ``objectChecker.Stop`` because the checker goroutine
stored it after the checker was already reachable from the checker map (buggy 83e45df022ca,
fixed by PR #2220 at 19927c1a477e). See ``wait_for_controlled_pods`` for the measurement and
docs/ports/clusterloader2.md for the behaviour step by step. One idea per module:

* ``objects`` - the controlling objects (spec, resourceVersion, key, tombstones);
* ``cluster`` - the scripted API server: watch events on the virtual clock, LIST, pods;
* ``pod_store`` / ``replicas`` / ``wait_for_pods`` - what a checker waits on;
* ``informer`` - delivers events to the handler; ``worker_queue`` - the FIFO + one worker;
* ``handling_group`` - ``wait.Group``; ``poll`` - ``wait.Poll``;
* ``object_checker``, ``checker_map``, ``wait_for_controlled_pods`` - the code with the bug.
"""

from .checker_map import CheckerMap
from .cluster import ADDED, DELETED, MODIFIED, FakeCluster, PodStep, ScriptBuilder, WatchEvent
from .object_checker import ObjectChecker, ObjectStatus
from .objects import DeletedFinalStateUnknown, ObjectSpec, RuntimeObject
from .wait_for_controlled_pods import VARIANTS, WaitForControlledPods

__all__ = [
    "ADDED", "DELETED", "MODIFIED", "VARIANTS", "CheckerMap", "DeletedFinalStateUnknown", "FakeCluster",
    "ObjectChecker", "ObjectSpec", "ObjectStatus", "PodStep", "RuntimeObject", "ScriptBuilder", "WaitForControlledPods",
    "WatchEvent",
]
