"""A worker that kombu cannot reconnect exits with one line and status 75, so it is restarted.

Why: when Redis goes away (a restart, a failover, an outage) Celery's consumer closes its channels
and reconnects. kombu's Redis transport sometimes fails in that close itself: the channel's
connection is already gone when it deletes its auto-delete queues or restores its unacked
messages, and ``_connparams`` reads ``conninfo.hostname`` of ``None``
(``AttributeError: 'NoneType' object has no attribute 'hostname'``; celery/kombu#582, the same
family as celery/celery#4652 and #9250, still seen with kombu 5.7.0). Celery calls any exception out
of its consumer an ``Unrecoverable error``, logs a traceback and exits with status 1, 14 s after the
outage in the issue's measurement; nothing in Celery or kombu avoids it (no setting turns the
close path off while keeping the remote control the watchdog pings through).

What: a filter on the logger Celery reports it with (``celery.worker``, in
``WorkController.start``) recognises a broker connection fault among those errors: a Redis or
kombu connection error, a ``ConnectionError``, Redis refusing writes (out of memory), or an
``AttributeError`` on ``None`` raised from kombu's code. It replaces the traceback with one line and
makes the process exit with status 75 (EX_TEMPFAIL, "try again", as the watchdog does) once Celery's
shutdown is done; ``fuzzfarm worker``, ``fuzzfarm up`` and every deploy file restart it. Any other
unrecoverable error keeps Celery's report and exit status.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import traceback

from celery import signals

from .watchdog import EXIT_DEAF

log = logging.getLogger("fuzzfarm.reconnect")
EXIT_RECONNECT = EXIT_DEAF  # 75: the one "restart me" status of the farm's workers
_FORCE_EXIT_S = 30.0
_fired = threading.Event()


def broker_fault(exc: BaseException | None) -> str | None:
    """What to call ``exc`` in the one line when it is a broker connection fault, else None."""
    if exc is None:
        return None
    import redis
    from kombu.exceptions import OperationalError

    if isinstance(exc, redis.exceptions.OutOfMemoryError):
        return "Redis refuses writes (out of memory)"
    if isinstance(exc, (redis.ConnectionError, redis.TimeoutError, OperationalError, ConnectionError)):
        return "the connection to Redis was lost"
    if isinstance(exc, AttributeError) and "'NoneType' object has no attribute" in str(exc):
        files = [f.filename for f in traceback.extract_tb(exc.__traceback__)]
        if any(f"{os.sep}kombu{os.sep}" in f for f in files):
            return "kombu failed to reconnect to Redis (its reconnect bug, celery/kombu#582)"
    return None


class _Filter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if not record.getMessage().startswith("Unrecoverable error") or not record.exc_info:
            return True
        what = broker_fault(record.exc_info[1])
        if what is None:
            return True
        exc = record.exc_info[1]
        log.error("fuzzfarm worker: %s (%s: %s); exiting with status %d so its supervisor starts it again",
                  what, type(exc).__name__, exc, EXIT_RECONNECT)
        if not _fired.is_set():
            _fired.set()
            # Celery's stop() ends with status 1; the status is set last, once its cleanups ran
            # (atexit is last in, first out), or after _FORCE_EXIT_S if the shutdown hangs.
            atexit.register(_exit)
            timer = threading.Timer(_FORCE_EXIT_S, _exit)
            timer.daemon = True
            timer.start()
        return False


def _exit() -> None:
    logging.shutdown()
    os._exit(EXIT_RECONNECT)


FILTER = _Filter()


def install() -> None:
    logger = logging.getLogger("celery.worker")  # celery.utils.log.worker_logger, which WorkController.start uses
    if FILTER not in logger.filters:
        logger.addFilter(FILTER)


@signals.worker_init.connect
def _install(**_kw) -> None:
    install()
