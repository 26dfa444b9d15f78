"""The janitor publishes a lost slice or intake by task name (farm/janitor.py imports no task
module): the message is the one the task's own apply_async publishes, same queue, task, time
limits, priority and ignore_result, on a real Redis broker."""

from __future__ import annotations

from fuzzfarm.farm import config, redis_url

SAME = ("task", "timelimit", "ignore_result", "argsrepr", "retries", "eta", "expires")


def _take(app, queue: str):
    with app.connection_for_read() as conn:
        msg = conn.default_channel.basic_get(queue, no_ack=True)  # taken: not restored when the channel closes
    assert msg is not None, f"nothing on {queue}"
    return {k: msg.headers.get(k) for k in SAME}, msg.properties.get("priority"), msg.decode()[0]


def test_the_janitors_messages_are_the_tasks_own(redis_server, monkeypatch):
    from fuzzfarm.farm import app, configure, janitor, tasks
    from fuzzfarm.farm.store import Store

    Store(redis_server.url).r.flushdb()
    monkeypatch.setenv(redis_url.ENV, redis_server.url)
    configure(redis_server.url)
    spec = {"campaign": "c1", "job": 0, "slice": 2, "harness": "checker", "variant": "buggy"}
    soft, hard = config.fuzz_time_limits(30.0)
    tasks.fuzz_job.apply_async(args=[spec], soft_time_limit=soft, time_limit=hard)
    janitor.Janitor(app)._enqueue(spec, 30.0)
    own, by_janitor = _take(app, config.FUZZ_QUEUE), _take(app, config.FUZZ_QUEUE)
    assert own == by_janitor and own[0]["task"] == config.TASK_FUZZ and own[2] == [spec]

    tasks.enqueue_intake("c1", "checker", "buggy", "a" * 64)
    janitor.Janitor(app)._enqueue_intake("c1", "checker", "buggy", "a" * 64)
    own, by_janitor = _take(app, config.COLLECT_QUEUE), _take(app, config.COLLECT_QUEUE)
    assert own == by_janitor and own[0]["task"] == config.TASK_INTAKE and own[1] == config.INTAKE_PRIORITY
