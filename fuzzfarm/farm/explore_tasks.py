"""The Celery task of a distributed ``dfs`` search (logic in :mod:`.explore_jobs`): one subtree,
on the ``fuzz`` queue, with the farm's late acks (a killed worker's subtree is delivered again)."""

from __future__ import annotations

from fuzzfarm.farm import app, config, explore_jobs
from fuzzfarm.farm.tasks import _REDIS_ERRORS, _died, _requeue, store_and_deaths

TASK_EXPLORE = "fuzzfarm.explore_subtree"


def enqueue(eid: str, iid: str) -> None:
    explore_subtree.apply_async(args=[eid, iid], queue=config.FUZZ_QUEUE, retry=True,
                                retry_policy=config.WORKER_PUBLISH_RETRY_POLICY)


def submit(st, spec: dict, data: bytes) -> str:
    """Record a search and enqueue its root subtree. Returns its id."""
    eid = explore_jobs.create(st, spec, data)
    enqueue(eid, explore_jobs.ROOT)
    return eid


@app.task(name=TASK_EXPLORE, bind=True)
def explore_subtree(self, eid: str, iid: str) -> str:
    """Explore one subtree of search ``eid`` and enqueue the subtrees it leaves."""
    st, dead = store_and_deaths(self)
    if dead:
        st.cancel_subtree(eid, iid, error=_died(dead))
        return "failed"
    try:
        return explore_jobs.run_subtree(st, eid, iid, enqueue=enqueue)
    except _REDIS_ERRORS as e:
        raise _requeue(e) from e
