"""``WaitForPods``: poll a pod store every 5 virtual seconds until the desired pods run.

Upstream: kubernetes/perf-tests at 83e45df022ca,
``clusterloader2/pkg/measurement/util/wait_for_pods.go`` lines 59-133 (the interval is
``defaultWaitForPodsInterval`` = 5 s, ``common/wait_for_pods.go:31``). It lists the pods once,
then loops on a select: ``ctx.Done()`` ends it with a "timeout while waiting" error naming the
pods that are not running; a fresh ``time.After(interval)`` relists and succeeds once every pod
is running or inactive and running = updated = desired (with a count error margin > 0, any
updated-running count within the margin below desired is enough).
"""

from __future__ import annotations

import dataclasses
from typing import Callable

from fuzzfarm.gosim import after, go_func, not_ported, recv_case, select
from fuzzfarm.gosim.context import Context, GoError

from .pod_store import Pod, compute_pods_startup_status

DEFAULT_WAIT_FOR_PODS_INTERVAL = 5.0


@dataclasses.dataclass
class WaitForPodOptions:
    """``measurementutil.WaitForPodOptions``."""

    desired_pod_count: int
    count_error_margin: int = 0
    caller_name: str = ""
    wait_for_pods_interval: float = DEFAULT_WAIT_FOR_PODS_INTERVAL
    is_pod_updated: Callable[[Pod], bool] | None = None


class WaitForPodsError(GoError):
    """The error WaitForPods returns when its context ends first; ``not_ready_pods`` names
    the pods that were not running at the last listing."""

    @not_ported("the error WaitForPods returns, carrying the not-ready pods it returns beside it")
    def __init__(self, message: str, not_ready_pods: list[str]):
        super().__init__(message)
        self.not_ready_pods = not_ready_pods


@not_ported("WaitForPods' success test (wait_for_pods.go:121 and :126), split out of its loop")
def _settled(pods: list[Pod], options: WaitForPodOptions) -> bool:
    st = compute_pods_startup_status(pods, options.desired_pod_count, options.is_pod_updated)
    if len(pods) != st.running + st.inactive or st.running != st.running_updated:
        return False
    desired = options.desired_pod_count
    if options.count_error_margin > 0:
        return desired - options.count_error_margin <= st.running_updated <= desired
    return st.running_updated == desired


@go_func("util.WaitForPods", "wait_for_pods.go:59")
def wait_for_pods(ctx: Context, ps, options: WaitForPodOptions) -> WaitForPodsError | None:
    """Wait until ``ps`` lists the desired running pods; an error once ``ctx`` is done."""
    old_pods = ps.list()
    while True:
        i, _, _ = select(recv_case(ctx.done()), recv_case(after(options.wait_for_pods_interval)))
        if i == 0:
            st = compute_pods_startup_status(old_pods, options.desired_pod_count, options.is_pod_updated)
            not_ready = [p.name for p in old_pods if not (p.phase == "Running" and p.ready)]
            return WaitForPodsError(
                f"timeout while waiting for {options.desired_pod_count} pods to be running - only "
                f"{st.running} found running; pods not running: {not_ready}", not_ready)
        pods = ps.list()
        if _settled(pods, options):
            return None
        old_pods = pods
