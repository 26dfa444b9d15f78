"""Routing and fleet visibility: each queue on an exchange of its own name (the banner showed
the fuzz queue on exchange=collect), task events on, a unique node name per worker."""

from fuzzfarm.farm import app, config
from fuzzfarm.farm.embedded import node_name, worker_command
from fuzzfarm.farm.split_worker import commands


def test_each_queue_has_its_own_exchange_and_routing_key():
    qs = {q.name: q for q in app.conf.task_queues}
    assert set(qs) == {"fuzz", "collect"}
    for name, q in qs.items():
        assert q.exchange.name == name and q.routing_key == name
    routes = config.celery_config("redis://127.0.0.1:6379/0")["task_routes"]
    assert routes[config.TASK_FUZZ]["queue"] == "fuzz" and routes[config.TASK_INTAKE]["queue"] == "collect"


def test_task_events_are_on_for_every_worker():
    conf = config.celery_config("redis://127.0.0.1:6379/0")
    assert conf["worker_send_task_events"] is True and "-E" in worker_command(["fuzz"])


def test_node_names_are_unique_per_worker_on_one_host():
    a, b = node_name(["fuzz"]), node_name(["fuzz"])
    assert a != b and a.endswith("@%h") and a.startswith("fuzz-")
    assert node_name(["collect"], "c7") == "c7@%h" and node_name(["fuzz"], "x@host") == "x@host"
    fuzz, collect = commands(fuzz_concurrency=4, collect_concurrency=1)
    assert fuzz[fuzz.index("-Q") + 1] == "fuzz" and fuzz[fuzz.index("-c") + 1] == "4"
    assert collect[collect.index("-Q") + 1] == "collect" and collect[collect.index("-c") + 1] == "1"
    assert fuzz[fuzz.index("-n") + 1] != collect[collect.index("-n") + 1]


def test_the_collect_worker_gets_the_cores_it_was_given_by_default():
    """``fuzzfarm worker``: triage runs in as many processes as the cores this process may use."""
    import inspect
    import os

    from fuzzfarm.cli import worker as W
    opt = inspect.signature(W.worker).parameters["collect_concurrency"].default
    assert opt.default == len(os.sched_getaffinity(0))
