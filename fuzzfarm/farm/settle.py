"""A task stopped from outside still settles what it was doing.

Two ways a task ends without its own code running to the end, both seen in the main process of
the worker (where these handlers run):

* **revoked** (``celery control revoke ID``, ``celery control terminate SIGTERM ID``, what Flower's *terminate* sends): Celery
  acknowledges the message and, with terminate, kills the pool process running it. The job
  or crash it carried would stay ``running`` / untriaged forever, and ``submit --wait`` with it.
* **hard time limit** (the soft one is handled inside the task): Celery kills the pool process
  and records a failure; the message is not requeued (docs/TRAPS.md#g13).

Here a revoked fuzz slice ends its job as ``cancelled`` (an operator stopped it on purpose; its
crashes are kept and triaged), a slice over its hard limit ends its job as ``failed`` with the
reason; a revoked or killed crash intake is recorded as such (the crash input is kept) so the
campaign settles; a bucket's triage step is recorded as failed (bucket and inputs kept).
"""

from __future__ import annotations

import logging
import time

from billiard.exceptions import TimeLimitExceeded
from celery import signals

from fuzzfarm.farm import store as S
from fuzzfarm.farm import config, redis_url

log = logging.getLogger("fuzzfarm.settle")

_BUCKET_TASKS = (config.TASK_MINIMIZE, config.TASK_VERIFY, config.TASK_FIX_CHECK, config.TASK_PROVE)


def settle(task_name: str, args, why: str, *, job_state: str, task_id: str = "") -> None:
    """Record that the task ``task_name`` with ``args`` ended from outside, for ``why``."""
    st = S.Store(redis_url.from_env())
    if task_name == config.TASK_FUZZ and args:
        spec = args[0]
        cid, n = spec["campaign"], int(spec["job"])
        if st.job(cid, n).get("state") in S.JOB_FINAL:
            return
        from fuzzfarm.farm import lease
        if lease.taken_over(st, spec, task_id):  # e.g. a box frozen past its hard limit, thawed
            log.warning("job %s/%s slice %s: %s, but its lease had been taken over (the slice runs elsewhere); "
                        "the job is left to it", cid, n, spec.get("slice", 0), why)
            return
        log.warning("job %s/%s slice %s: %s; job %s", cid, n, spec.get("slice", 0), why, job_state)
        st.update_job(cid, n, state=job_state, finished=time.time(), error=why)
    elif task_name == config.TASK_INTAKE and len(args) == 4:
        cid, harness, variant, sha = args
        log.warning("crash %s of campaign %s: intake %s; the input is kept", sha[:12], cid, why)
        st.set_crash(harness, variant, sha, status="intake stopped", error=why)
        st.mark_intaken(cid, sha, None)
    elif task_name in _BUCKET_TASKS and args:
        from fuzzfarm.farm import triage
        triage.fail_bucket(st, args[0], f"{task_name}: {why}")


def _safely(fn, *a, **kw) -> None:
    try:
        fn(*a, **kw)
    except Exception as e:  # noqa: BLE001 - never break the worker's event loop
        log.warning("fuzzfarm: could not record how a stopped task ended: %s",
                    redis_url.mask_text(f"{type(e).__name__}: {e}", redis_url.from_env()))


@signals.task_revoked.connect
def _revoked(sender=None, request=None, terminated=False, signum=None, expired=False, **_kw) -> None:
    if sender is None or request is None:
        return
    why = ("revoked and terminated (celery control terminate, or revoke with terminate)" if terminated
           else "expired" if expired else "revoked before it ran (celery control revoke)")
    _safely(settle, sender.name, list(getattr(request, "args", None) or ()), why, job_state=S.JOB_CANCELLED,
            task_id=getattr(request, "id", "") or "")


@signals.task_failure.connect
def _hard_time_limit(sender=None, exception=None, args=None, task_id=None, **_kw) -> None:
    if sender is None or not isinstance(exception, TimeLimitExceeded):
        return
    _safely(settle, sender.name, list(args or ()), f"killed at its hard time limit ({exception})",
            job_state=S.JOB_FAILED, task_id=task_id or "")
