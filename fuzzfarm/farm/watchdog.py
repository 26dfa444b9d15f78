"""A worker that stops hearing the broker exits, so its supervisor restarts it.

Why: when Redis drops a worker's pub/sub connection (``CLIENT KILL TYPE pubsub``, a failover, a
proxy reset, a middlebox idle timeout), kombu 5.7's Redis transport can leave the worker's event
loop alive but deaf: it stops issuing ``BRPOP`` for its queues, never answers ``inspect ping``
and logs nothing, while the job it should run waits in the queue (a family of reports upstream:
celery/celery#8030, #8082, #10205, #10302). Celery's own connection checks do not see it,
because the consumer never raises.

What: a daemon thread in the worker's main process pings its own node through the broker every
``FUZZFARM_WATCHDOG_INTERVAL_S`` seconds (default 5; 0 turns it off). The ping is a broadcast
on the same pub/sub channel the worker listens on, handled by the worker's own event loop, so
hearing it proves both that the loop runs and that the subscription is alive. It is a remote
control command of ours (``fuzzfarm_watchdog``) sent without a reply: the handler runs in this
same process and marks the ping heard, so a heard ping costs one PUBLISH instead of Celery's
``ping`` round trip through a reply queue (about 40 Redis commands: declaring, polling and
deleting the reply queue and its bindings; docs/OPERATIONS.md). After
``FUZZFARM_WATCHDOG_MISSES`` (default 3) unanswered pings in a row while Redis itself answers,
it logs one line and asks the worker for a cold shutdown (SIGQUIT, the fleet-restart path:
running tasks are handed back to the queue at once and are not counted as deaths); the worker
then exits with status 75 (EX_TEMPFAIL) so a supervisor (systemd ``Restart=always``, Kubernetes,
``fuzzfarm up``) starts a fresh one. If the shutdown itself hangs, the process exits after
``_FORCE_EXIT_S`` regardless.

A Redis that is down is not deafness: while the ping cannot even be published, misses are not
counted (Celery's own reconnect handles a restarted Redis).
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import threading
import time
import uuid

from celery import signals
from celery.worker.control import control_command

log = logging.getLogger("fuzzfarm.watchdog")

EXIT_DEAF = 75  # EX_TEMPFAIL: "try again", which is what a supervisor should do
_FORCE_EXIT_S = 10.0  # a deaf worker's cold shutdown talks over dead sockets: do not wait long


def settings() -> tuple[float, int]:
    """(interval seconds, misses before exit); interval 0 = off."""
    from fuzzfarm import settings as env
    return (env.number("FUZZFARM_WATCHDOG_INTERVAL_S", 5.0),
            env.number("FUZZFARM_WATCHDOG_MISSES", 3, integer=True, above=True))


# Pings sent and not yet heard, by nonce (one worker process runs one watchdog; the lock because
# the handler runs on the worker's event loop and the waiter on the watchdog's thread).
_waiting: dict[str, threading.Event] = {}
_waiting_lock = threading.Lock()


@control_command(args=[("nonce", str)], signature="<nonce>")
def fuzzfarm_watchdog(state, nonce: str = "", **_kw) -> dict:
    """The watchdog's ping, run by the worker's event loop when the broadcast arrives."""
    with _waiting_lock:
        heard = _waiting.get(nonce)
    if heard is not None:
        heard.set()
    return {"ok": "heard"}


class Watchdog:
    """Pings ``hostname`` through ``app``'s broker; calls ``on_deaf(seconds)`` once when it is deaf."""

    def __init__(self, app, hostname: str, *, interval_s: float, misses: int, on_deaf):
        self.app = app
        self.hostname = hostname
        self.interval_s = interval_s
        self.misses = misses
        self.on_deaf = on_deaf
        # A worker's loop answers a ping in milliseconds; seconds of silence are not load.
        self.reply_timeout_s = min(interval_s, 3.0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fuzzfarm-watchdog", daemon=True)

    def start(self) -> "Watchdog":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def answered(self) -> bool | None:
        """True: our node's loop heard the ping; False: Redis took the ping, our loop did not
        hear it within the reply timeout; None: the ping could not be sent (Redis unreachable),
        which says nothing about us."""
        nonce = uuid.uuid4().hex
        heard = threading.Event()
        with _waiting_lock:
            _waiting[nonce] = heard
        try:
            try:
                # published through the app's producer pool (kombu's pidbox does so whatever
                # connection it is given), which retries until Redis takes it
                self.app.control.broadcast("fuzzfarm_watchdog", arguments={"nonce": nonce},
                                           destination=[self.hostname], reply=False)
            except Exception:  # noqa: BLE001 - any broker error means "cannot tell", not "deaf"
                return None
            if heard.wait(self.reply_timeout_s):
                return True
            # Not heard: deaf, or Redis went away meanwhile (which says nothing about us). Only
            # now a fresh connection of its own asks Redis (a healthy node's ping costs no probe).
            try:
                with self.app.connection_for_write() as conn:
                    conn.ensure_connection(max_retries=1)
            except Exception:  # noqa: BLE001
                return None
            return heard.is_set()
        finally:
            with _waiting_lock:
                _waiting.pop(nonce, None)

    def _run(self) -> None:
        missed, first_miss = 0, None
        while not self._stop.wait(self.interval_s):
            ok = self.answered()
            if ok is None or self._stop.is_set():
                continue
            if ok:
                missed, first_miss = 0, None
                continue
            missed += 1
            first_miss = first_miss or time.monotonic()
            if missed >= self.misses:
                self.on_deaf(time.monotonic() - first_miss + self.interval_s + self.reply_timeout_s)
                return


_fired = threading.Event()
_dog: Watchdog | None = None


def _deaf(seconds: float) -> None:
    log.error("fuzzfarm watchdog: this worker has not heard its own pings through the broker for %.0f s "
              "(its Redis pub/sub connection was lost and not restored); cold shutdown, exit %d, so its "
              "supervisor restarts it", seconds, EXIT_DEAF)
    _fired.set()
    # Celery's cold shutdown ends with status 0 whatever asked for it: the status is set last,
    # once every cleanup of Celery's has run (atexit is last in, first out).
    atexit.register(_exit_deaf)
    threading.Timer(_FORCE_EXIT_S, _exit_deaf).start()
    os.kill(os.getpid(), signal.SIGQUIT)


def _exit_deaf() -> None:
    logging.shutdown()
    os._exit(EXIT_DEAF)


@signals.worker_ready.connect
def _start(sender=None, **_kw) -> None:
    global _dog
    interval_s, misses = settings()
    if interval_s <= 0 or sender is None or _dog is not None:  # worker_ready again after a reconnect
        return
    _dog = Watchdog(sender.app, sender.hostname, interval_s=interval_s, misses=misses, on_deaf=_deaf).start()


@signals.worker_shutdown.connect
def _stop(**_kw) -> None:
    if _dog is not None:
        _dog.stop()
