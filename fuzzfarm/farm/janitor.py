"""The janitor: a thread in every worker's main process (started on ``worker_ready``, stopped on
``worker_shutdown``) that every ``FUZZFARM_JANITOR_INTERVAL_S`` (5 s) renews the delivery tags
this worker holds (farm/unacked.py), takes over slices whose lease ended and requeues them
(farm/lease.py), and, one janitor of the fleet per round, restores messages stranded in
``unacked`` (farm/unacked.py) and publishes again what was lost on the wire (farm/rescue.py);
settled campaigns get their TTL (store/retention.py). Any number of janitors may run: each
take-over is atomic, the fleet-wide parts take a round lease."""

from __future__ import annotations

import logging
import threading

from celery import signals

from fuzzfarm import settings
from fuzzfarm.farm import store as S
from fuzzfarm.farm import config, lease, redis_url

log = logging.getLogger("fuzzfarm.lease")

JANITOR_INTERVAL_S = settings.number("FUZZFARM_JANITOR_INTERVAL_S", 5.0, above=True)


def sweep(st: S.Store, *, round_ms: int, enqueue_fuzz, enqueue_intake, restore) -> None:
    """One janitor round (see the module doc). ``enqueue_fuzz(spec, slice_s)``,
    ``enqueue_intake(cid, harness, variant, sha)``, ``restore(tag)``: how messages are published."""
    from fuzzfarm.farm import rescue, unacked  # late, as every module a round needs: celery_app imports this one
    from fuzzfarm.farm.store import retention

    # the messages this worker holds have a live owner (farm/unacked.py): first, so a round after
    # an outage renews before any janitor judges them
    unacked.renew(st, unacked.held_tags())
    requeue_lost_slices(st, enqueue_fuzz)
    # one janitor of the fleet per round: task messages lost on the wire (farm/rescue.py) and
    # messages stranded in kombu's unacked hash with no live owner (farm/unacked.py)
    if st.fleet_round("rescue-sweep", px=round_ms):
        unacked.sweep(st, restore)
        rescue.sweep(st, enqueue_fuzz=enqueue_fuzz, enqueue_intake=enqueue_intake)
    retention.expire_settled(st)  # settled campaigns' keys get their TTL (one janitor a minute)


def requeue_lost_slices(st: S.Store, enqueue, now: float | None = None) -> list[str]:
    """Requeue every slice whose lease ended. ``enqueue(spec, slice_s)``. Returns the members requeued."""
    from fuzzfarm.farm import jobs

    done = []
    for m in lease.expired(st, now):
        lost = lease.take_over(st, m, now)
        if lost <= 0:
            continue
        cid, n, k = m.rsplit(":", 2)
        n, k = int(n), int(k)
        job, camp = st.job(cid, n), st.campaign(cid)
        if not camp:
            continue
        worker = job.get("lost_worker", "") or "?"
        if lost > config.MAX_DELIVERIES:
            jobs.fail_job(st, cid, n, f"gave up after its slice was lost {lost} times (the worker running it, last "
                                      f"{worker}, stopped renewing its lease: machine gone, frozen or cut off)")
            continue
        spec = {**jobs.job_spec(cid, n, camp), "slice": k}
        left = float(camp["duration_s"]) - float(job.get("elapsed_base", 0) or 0)
        try:
            enqueue(spec, max(1.0, min(left, config.MAX_SLICE_S)))
        except Exception as e:  # noqa: BLE001 - give the lease back so the next round retries
            log.warning("janitor: could not requeue job %s/%s slice %s (%s); retrying next round", cid, n, k,
                        redis_url.mask_text(f"{type(e).__name__}: {e}", redis_url.from_env()))
            st.give_lease_back(m, cid, n)
            continue
        log.warning("janitor: job %s/%s slice %s was running on %s, whose lease ended %.0f s ago without "
                    "renewal (worker gone); lost → requeued", cid, n, k, worker, lease.LEASE_TTL_S)
        done.append(m)
    return done


# ---- the janitor thread (worker main process) -------------------------------------------------
class Janitor:
    def __init__(self, app, interval_s: float = JANITOR_INTERVAL_S):
        self.app, self.interval_s = app, interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fuzzfarm-janitor", daemon=True)

    def start(self) -> "Janitor":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _send(self, name: str, args: list, **kw) -> None:
        """Publish task ``name`` (by name: the janitor needs no task module) as the task's own
        apply_async would (its route; results ignored, as every farm task's), on a connection of
        its own, not the app's pool: this thread runs beside the worker's loop."""
        with self.app.connection_for_write() as conn:
            self.app.send_task(name, args=args, connection=conn, ignore_result=True, retry=True,
                               retry_policy=config.WORKER_PUBLISH_RETRY_POLICY, **kw)

    def _enqueue(self, spec: dict, slice_s: float) -> None:
        soft, hard = config.fuzz_time_limits(slice_s)
        self._send(config.TASK_FUZZ, [spec], soft_time_limit=soft, time_limit=hard)

    def _enqueue_intake(self, cid: str, harness: str, variant: str, sha: str) -> None:
        self._send(config.TASK_INTAKE, [cid, harness, variant, sha], priority=config.INTAKE_PRIORITY)

    def _run(self) -> None:
        from fuzzfarm.farm import unacked

        st = None
        restore = unacked.restore_with(self.app)
        while not self._stop.wait(self.interval_s):
            try:
                # short socket timeouts, as the broker's: a half-open pooled connection costs a
                # round seconds, not half a minute (config.BROKER_SOCKET_TIMEOUT_S)
                st = st or S.Store(redis_url.from_env(), client=S.connect(
                    redis_url.from_env(), socket_timeout=config.BROKER_SOCKET_TIMEOUT_S))
                sweep(st, round_ms=int(max(0.5, self.interval_s * 0.9) * 1000), enqueue_fuzz=self._enqueue,
                      enqueue_intake=self._enqueue_intake, restore=restore)
            except Exception as e:  # noqa: BLE001 - Redis away: the next round tries again
                log.debug("janitor round failed: %s", redis_url.mask_text(str(e), redis_url.from_env()))


_janitor: Janitor | None = None


@signals.worker_ready.connect
def _start(sender=None, **_kw) -> None:
    global _janitor
    if JANITOR_INTERVAL_S <= 0 or sender is None or _janitor is not None:
        return
    _janitor = Janitor(sender.app).start()


@signals.worker_shutdown.connect
def _stop(**_kw) -> None:
    if _janitor is not None:
        _janitor.stop()
