"""The corpus merge (a whole libFuzzer ``-merge=1`` run over the shared corpus: 20-47 s of a core
in benchmarks/end_to_end.py's 2 x 20 s checker campaigns) waits while any triage task is queued or
running on the farm (farm/tasks.py ``merge_corpus``, config.MERGE_DEFER_WAIT_S): it publishes its
message again and frees its collect process. Bounded: after config.MERGE_DEFER_MAX_S it runs.
A real redis-server and the task's own messages, no worker (nothing consumes them here)."""

from __future__ import annotations

import faultlib

from farm_fixtures import _need_redis
from fuzzfarm.farm import config
from fuzzfarm.farm.store import keys


def _collect_messages(st) -> list[str]:
    """The task names of the collect queue's messages (queued or unacked)."""
    from fuzzfarm.farm import rescue
    return [rescue._task_args(raw)[0] for raw in st.queued_messages((config.COLLECT_QUEUE,))]


def _clear(st) -> None:
    for k in keys.celery_queue_lists(config.COLLECT_QUEUE):
        st.r.delete(k)


def test_the_merge_waits_while_triage_is_in_flight_and_runs_after(tmp_path):
    _need_redis()
    from fuzzfarm import harness as H
    from fuzzfarm.farm import rescue, tasks
    from fuzzfarm.farm.embedded import RedisServer

    (tmp_path / "redis").mkdir()
    hh = H.get("checker").source_hash()
    with RedisServer(str(tmp_path / "redis")) as redis, faultlib.publishing_to(redis.url) as st:
        tasks.enqueue_intake("c1", "checker", "buggy", "a" * 64)  # a crash waiting for its intake
        assert rescue.triage_in_flight(st) == 1
        assert tasks.merge_corpus.apply(args=["checker", "buggy", hh]).get() == "deferred"
        assert _collect_messages(st).count(config.TASK_MERGE) == 1  # its message again, to look once more after MERGE_DEFER_WAIT_S
        since = tasks.merge_corpus.apply(args=["checker", "buggy", hh], kwargs={"since": 0.0}).get()
        assert since != "deferred"  # waited longer than MERGE_DEFER_MAX_S: it runs whatever is queued

        _clear(st)
        tasks._enqueue_triage(tasks.prove, config.PROOF_PRIORITY)("b1")  # a proof not run yet counts too
        assert rescue.triage_in_flight(st) == 1
        assert tasks.merge_corpus.apply(args=["checker", "buggy", hh]).get() == "deferred"

        _clear(st)
        assert rescue.triage_in_flight(st) == 0
        assert tasks.merge_corpus.apply(args=["checker", "buggy", hh]).get() in ("merged", "not due")
        assert config.TASK_MERGE not in _collect_messages(st)
