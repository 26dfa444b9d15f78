"""The farm: the Celery app, its tasks and the embedded launcher.

    celery -A fuzzfarm.farm worker -Q fuzz      # a fuzzing machine of the fleet
    celery -A fuzzfarm.farm worker -Q collect   # a collector

The Redis URL comes from ``$FUZZFARM_REDIS_URL`` (see :mod:`fuzzfarm.farm.redis_url`);
:func:`configure` points an already imported app at another Redis (the CLI's ``--redis``).
"""

from __future__ import annotations

import os

from celery import Celery
from kombu import Queue

from . import config, redis_url

app = Celery("fuzzfarm", include=["fuzzfarm.farm.tasks"])
app.conf.task_queues = [Queue(q) for q in config.QUEUES]
app.conf.update(config.celery_config(redis_url.from_env()))


def configure(url: str) -> None:
    """Use the Redis at ``url`` from now on (this process and the processes it starts)."""
    redis_url.validate(url)
    os.environ[redis_url.ENV] = url
    app.conf.update(config.celery_config(url))
    # Publishing connections are pooled on first use; drop them (as Celery does after a fork)
    # so that the next message goes to the new Redis, not to the one used before.
    # (not closed: kombu keeps the pool in a registry by URL, and would hand out the closed one)
    app._pool = None
    amqp = app.__dict__.get("amqp")
    if amqp is not None:
        amqp._producer_pool = None


__all__ = ["app", "configure"]
