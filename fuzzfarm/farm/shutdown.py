"""Warm shutdown in seconds, not a slice length.

Celery's warm shutdown (plain SIGTERM, without ``REMAP_SIGTERM=SIGQUIT``) waits for the running
tasks to finish, and a fuzz slice runs for up to ``FUZZFARM_MAX_SLICE_S`` (600 s): a rolling
restart of the fleet would take ten minutes per worker. So when the main process starts a warm
shutdown it asks its own running slices to end early: it marks itself in Redis
(``stopping:<node>:<pid>``, see :mod:`fuzzfarm.farm.store`), each slice's stats callback sees the mark
at its next stats tick (every 2 s) and ends the slice as if its time were up
(:class:`fuzzfarm.engine.StopRequested`): the fuzzer stops, its crashes are already kept, its new
corpus is saved, the time it ran is counted, and the rest of the job is enqueued as the next
slice, which another worker takes. The task then returns and is acknowledged, and the worker exits.

The mark names the main process's pid, so a worker restarted under the same node name is not
stopped by its predecessor's mark (which also expires).
"""

from __future__ import annotations

import logging
import os

from celery import signals

from fuzzfarm.farm import redis_url

log = logging.getLogger("fuzzfarm.shutdown")


@signals.worker_shutting_down.connect
def _end_running_slices_early(sender=None, how=None, **_kw) -> None:
    if how != "Warm" or not sender:
        return  # a cold shutdown hands running tasks back to the queue at once anyway
    from fuzzfarm.farm import store as S
    try:
        S.Store(redis_url.from_env()).request_worker_stop(str(sender), os.getpid())
    except Exception as e:  # noqa: BLE001 - Redis down: the slices end at their own time, as before
        log.warning("fuzzfarm: warm shutdown: could not ask the running slices to end early (%s); "
                    "they finish their slice first", redis_url.mask_text(str(e), redis_url.from_env()))
        return
    log.info("fuzzfarm: warm shutdown: running fuzz slices end within seconds; the rest of each job is requeued")
