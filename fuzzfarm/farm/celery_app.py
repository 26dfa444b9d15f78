"""The Celery app of the farm (built on first use of ``fuzzfarm.farm.app``; see the package).

    celery -A fuzzfarm.farm worker -Q fuzz      # a fuzzing machine of the fleet
    celery -A fuzzfarm.farm worker -Q collect   # a collector

The Redis URL comes from ``$FUZZFARM_REDIS_URL`` (see :mod:`fuzzfarm.farm.redis_url`);
:func:`configure` points an already imported app at another Redis (the CLI's ``--redis``).
"""

from __future__ import annotations

import os
import sys

from celery import Celery, signals

from . import config, janitor, reconnect, redis_url, settle, shutdown, watchdog  # noqa: F401 - worker signal handlers

# A malformed $FUZZFARM_REDIS_URL must not break importing the farm (every CLI command imports
# it, also those that never touch Redis); it is reported where a URL is used: by the CLI as one
# line, by a worker at start-up (below).
try:
    _env_url, URL_ERROR = redis_url.from_env(), None
except redis_url.RedisURLError as e:
    _env_url, URL_ERROR = redis_url.DEFAULT_URL, e

app = Celery("fuzzfarm", include=["fuzzfarm.farm.tasks", "fuzzfarm.farm.explore_tasks"])
app.conf.task_queues = config.task_queues()
app.conf.update(config.celery_config(_env_url))


@signals.celeryd_init.connect
def _refuse_a_bad_url(**_) -> None:
    """A worker started with a malformed $FUZZFARM_REDIS_URL stops with that error instead of
    quietly serving the default Redis."""
    if URL_ERROR is not None and redis_url.ENV in os.environ:
        sys.stderr.write(f"fuzzfarm worker: {URL_ERROR}\n")
        sys.stderr.flush()
        os._exit(2)


@signals.celeryd_init.connect
def _refuse_missing_rights(**_) -> None:
    """A worker whose Redis user lacks rights the farm needs stops at once with one line naming
    them (exit 2) instead of a Celery traceback ending in NOPERM (farm/aclcheck.py). Redis not
    reachable yet: nothing to check here (the worker waits for it as usual)."""
    if URL_ERROR is not None:
        return
    from fuzzfarm.farm import store
    from . import aclcheck

    url = redis_url.from_env()
    try:
        gaps = aclcheck.missing(store.connect(url))
    except Exception:  # noqa: BLE001 - unreachable, or a transient error: not a rights problem
        return
    if gaps:
        sys.stderr.write(f"fuzzfarm worker: {aclcheck.line(aclcheck.user_of(url), gaps)}\n")
        sys.stderr.flush()
        os._exit(2)


def configure(url: str) -> None:
    """Use the Redis at ``url`` from now on (this process and the processes it starts)."""
    global URL_ERROR
    redis_url.validate(url)
    URL_ERROR = None
    os.environ[redis_url.ENV] = url
    app.conf.update(config.celery_config(url))
    # Publishing connections are pooled on first use; drop them (as Celery does after a fork)
    # so that the next message goes to the new Redis, not to the one used before.
    # (not closed: kombu keeps the pool in a registry by URL, and would hand out the closed one)
    app._pool = None
    amqp = app.__dict__.get("amqp")
    if amqp is not None:
        amqp._producer_pool = None
    # The result backend is made once per thread from the settings of that moment: a send that
    # waits for a result would subscribe at the old Redis (refused once it is gone).
    try:
        del app._local.backend
    except AttributeError:
        pass


__all__ = ["app", "configure"]
