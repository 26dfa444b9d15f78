"""The one Celery configuration of the farm: delivery, serialization, routing, time limits.

Stance (docs/TRAPS.md#g11 to #g17):

* **JSON only** on the wire, both ways; a pickled message is refused by kombu, never run.
* **Late acks + reject on worker lost + prefetch 1**: a job whose worker dies goes back on the
  queue. Every task is idempotent (crash intake by input hash, jobs by state in Redis), and
  each task counts its deliveries in Redis and gives up after ``MAX_DELIVERIES`` (poison pill,
  docs/TRAPS.md#g15), so a job that kills its pool child every time is recorded as failed, not requeued
  forever.
* **Fuzz jobs are cut into slices** of at most ``MAX_SLICE_S`` seconds (a job re-enqueues its
  next slice), so the visibility timeout, which must exceed the longest task (docs/TRAPS.md#g11), stays
  short enough that a job of a dead worker comes back within minutes, not hours.
* **soft < hard** time limits (docs/TRAPS.md#g13); libFuzzer also stops itself (``-max_total_time``).
* ``unacked_restore_throttle=1`` and a short ``unacked_restore_interval`` (docs/TRAPS.md#g12).
* No password in ``broker_transport_options`` (Celery #9563): it stays in the URL only.
"""

from __future__ import annotations

import math
import os

from fuzzfarm import settings

from . import redis_url

FUZZ_QUEUE = "fuzz"
COLLECT_QUEUE = "collect"
QUEUES = (FUZZ_QUEUE, COLLECT_QUEUE)


def task_queues() -> list:
    """The farm's queues, each bound to an exchange of its own name (without one, kombu binds
    every queue to the default exchange, named after ``task_default_queue``: the worker banner
    then showed the fuzz queue on ``exchange=collect``)."""
    from kombu import Exchange, Queue
    return [Queue(q, Exchange(q, type="direct"), routing_key=q) for q in QUEUES]

TASK_FUZZ = "fuzzfarm.fuzz_job"
TASK_INTAKE = "fuzzfarm.intake"
TASK_MINIMIZE = "fuzzfarm.minimize"
TASK_VERIFY = "fuzzfarm.verify"
TASK_FIX_CHECK = "fuzzfarm.fix_check"
TASK_PROVE = "fuzzfarm.prove"
TASK_MERGE = "fuzzfarm.merge_corpus"

# Message priorities on the Redis transport (0 is served first), in the order the user waits for
# them: each bucket's first reproducer (crash intake, which stores a downloadable one), then its
# minimization and verify replays (first come first served), then its fix check, then proofs. The collect worker runs
# as many of these as it has processes (``fuzzfarm worker`` gives it the cores it was given), so on
# a quiet collector the steps of several buckets run side by side; when its processes are all busy,
# the step the user waits for most is the next one served. kombu's Redis transport has four
# priority steps (0, 3, 6, 9; a value between two is served as the lower step).
INTAKE_PRIORITY = 0
TRIAGE_PRIORITY = 3  # minimize
VERIFY_PRIORITY = 3
FIX_CHECK_PRIORITY = 6
# A bucket's proof (the bounded exhaustive search on the fixed variant, its whole CPU budget when
# the search is not exhausted) comes last, and holds at most ``proof_slots(concurrency)`` of the
# collect worker's processes at once (tasks.prove), so another bucket's steps always find a free
# process instead of waiting behind proofs (measured: benchmarks/end_to_end.py). It shares the last
# priority step with the corpus merge, first come first served.
PROOF_PRIORITY = 9


def proof_slots(concurrency: int) -> int:
    """Proofs running at once on a collect worker of ``concurrency`` processes: all but one, so a
    triage step always has a process (one process: proofs run when nothing else is queued)."""
    return max(1, int(concurrency) - 1)


# Seconds a proof that found no free slot waits before its message is published again.
PROOF_SLOT_WAIT_S = 2.0
# A corpus merge (the shared corpus's -merge=1 prune, enqueued by a fuzz slice) waits behind both,
# and, while any triage task is queued or running on the farm, waits MERGE_DEFER_WAIT_S and looks
# again (tasks.merge_corpus), for at most MERGE_DEFER_MAX_S: it is a whole libFuzzer run over the
# corpus (measured: 20-47 s of a core on 2 cores during a 2 x 20 s checker campaign's triage,
# benchmarks/end_to_end.py) and nothing the user waits for depends on it.
MERGE_PRIORITY = 9
MERGE_DEFER_WAIT_S = 5.0
MERGE_DEFER_MAX_S = settings.number("FUZZFARM_MERGE_DEFER_MAX_S", 600.0)


def _env_float(name: str, default: float) -> float:
    """A positive number of seconds from ``$name`` (one line and exit 2 otherwise, fuzzfarm.settings)."""
    return settings.number(name, default, above=True)


# A fuzz job runs in slices of at most this many seconds of fuzzing.
MAX_SLICE_S = _env_float("FUZZFARM_MAX_SLICE_S", 600.0)
# A slice's task gets this much over its fuzzing time before the soft / hard limit fires
# (atheris start-up, corpus sync, crash uploads, final merge). $FUZZFARM_FUZZ_MARGIN_S sets the
# hard margin; the soft one is 3/4 of it.
FUZZ_HARD_MARGIN_S = _env_float("FUZZFARM_FUZZ_MARGIN_S", 120.0)
FUZZ_SOFT_MARGIN_S = FUZZ_HARD_MARGIN_S * 0.75
# Collector tasks (intake, minimize, verify 10x, fix check): $FUZZFARM_COLLECT_TIME_LIMIT_S is
# the hard limit; the soft one is 10/11 of it. With these two and $FUZZFARM_MAX_SLICE_S small,
# the visibility timeout, and so the time a job of a dead machine takes to come back (docs/TRAPS.md#g12), can
# be made short (the fault drills use it).
COLLECT_HARD_LIMIT_S = _env_float("FUZZFARM_COLLECT_TIME_LIMIT_S", 660.0)
COLLECT_SOFT_LIMIT_S = COLLECT_HARD_LIMIT_S * 10 / 11
LONGEST_TASK_S = max(MAX_SLICE_S + FUZZ_HARD_MARGIN_S, COLLECT_HARD_LIMIT_S)
VISIBILITY_TIMEOUT_S = _env_float("FUZZFARM_VISIBILITY_TIMEOUT", LONGEST_TASK_S + 120.0)
# Deliveries of one task message before it is recorded as failed (poison pill).
MAX_DELIVERIES = settings.number("FUZZFARM_MAX_DELIVERIES", 3, integer=True, above=True)
# Socket timeouts: a dead Redis gives an error in seconds, never a hang.
SOCKET_CONNECT_TIMEOUT_S = 3.0
SOCKET_TIMEOUT_S = 30.0
# The broker's and result backend's connections (every one kombu and Celery open: BRPOP,
# pub/sub, publishing, events). A half-open socket (a black-holed link, a middlebox that lost its
# state: no FIN, no RST) turns into an error after BROKER_SOCKET_TIMEOUT_S on any synchronous
# command. It must be short: the worker's event loop runs such commands (heartbeats, event
# publishes), and while one waits, kombu's own health checks cannot run (measured: a 30 s timeout
# kept an idle worker deaf for 29 s after a 5 s black hole, docs/RELIABILITY.md). Every Redis
# reply the farm waits for on those connections is immediate (BRPOP is sent with a BRPOP_TIMEOUT_S
# server-side timeout, below), so 5 s is never a live server's latency. The health checks (a PING before a command
# on a connection idle that long, and kombu's checks of the BRPOP and pub/sub connections, which
# drop one whose reply is overdue) run every BROKER_HEALTH_CHECK_S.
BROKER_SOCKET_TIMEOUT_S = _env_float("FUZZFARM_BROKER_SOCKET_TIMEOUT_S", 5.0)
# whole seconds, rounded up (0.5 must not become 0: that turns the checks off)
BROKER_HEALTH_CHECK_S = math.ceil(_env_float("FUZZFARM_BROKER_HEALTH_CHECK_S", 5))
# An idle consumer's BRPOP waits this long on the server before it is sent again (kombu's
# default is 1 s: one BRPOP per idle node per second, the largest part of an idle node's Redis
# traffic). A message wakes it at once whatever the timeout, so this costs no latency; it stays
# below BROKER_SOCKET_TIMEOUT_S, so a BRPOP reply is still never a live server's 5 s silence, and
# kombu drops a BRPOP connection whose reply is overdue after BRPOP_TIMEOUT_S + BROKER_HEALTH_CHECK_S.
BRPOP_TIMEOUT_S = 3
# kombu's sweep for messages whose visibility timeout ran out (each sweep: a mutex SET, a ZRANGE
# and a release script, per node). A tenth of the visibility timeout, at most 10 s and at least 1 s:
# a dead worker's message comes back at most that much after its timeout (docs/TRAPS.md#g12).
UNACKED_RESTORE_INTERVAL_S = min(10.0, max(1.0, VISIBILITY_TIMEOUT_S / 10))
# Workers ride out a Redis restart: their store calls retry a connection error this many times
# (jittered backoff up to 2 s, about a minute in all) and their publishes follow this policy.
# The CLI does not: it says at once that Redis is unreachable.
WORKER_REDIS_RETRIES = 60
WORKER_PUBLISH_RETRY_POLICY = {"max_retries": 60, "interval_start": 0.2, "interval_step": 0.5, "interval_max": 2}


def fuzz_time_limits(slice_s: float) -> tuple[float, float]:
    """(soft, hard) time limits for a fuzz slice of ``slice_s`` seconds; soft < hard (docs/TRAPS.md#g13)."""
    return slice_s + FUZZ_SOFT_MARGIN_S, slice_s + FUZZ_HARD_MARGIN_S


def celery_config(url: str) -> dict:
    """The farm's Celery settings for the Redis at ``url`` (broker and result backend)."""
    redis_url.validate(url)
    if VISIBILITY_TIMEOUT_S <= LONGEST_TASK_S:
        raise ValueError(f"FUZZFARM_VISIBILITY_TIMEOUT={VISIBILITY_TIMEOUT_S:g} must exceed the longest "
                         f"task ({LONGEST_TASK_S:g} s); raise it or lower FUZZFARM_MAX_SLICE_S")
    plain = redis_url.without_ssl_query(url)
    ssl_opts = redis_url.ssl_options(url)
    transport = {
        "visibility_timeout": VISIBILITY_TIMEOUT_S,
        "unacked_restore_interval": UNACKED_RESTORE_INTERVAL_S,
        # kombu's Redis transport uses polling_interval as the BRPOP server-side timeout (and, in a
        # synchronous drain_events, as the pause after an empty poll, capped at the call's timeout)
        "polling_interval": BRPOP_TIMEOUT_S,
        "unacked_restore_throttle": 1,
        "socket_connect_timeout": SOCKET_CONNECT_TIMEOUT_S,
        "socket_timeout": BROKER_SOCKET_TIMEOUT_S,
        "socket_keepalive": True,
        "retry_on_timeout": True,
        "health_check_interval": BROKER_HEALTH_CHECK_S,
    }
    conf = {
        "broker_url": plain,
        "result_backend": plain,
        "broker_transport_options": transport,
        "result_backend_transport_options": {"visibility_timeout": VISIBILITY_TIMEOUT_S},
        "redis_socket_connect_timeout": SOCKET_CONNECT_TIMEOUT_S,
        "redis_socket_timeout": BROKER_SOCKET_TIMEOUT_S,
        "redis_socket_keepalive": True,
        "redis_backend_health_check_interval": BROKER_HEALTH_CHECK_S,
        "redis_retry_on_timeout": True,
        "broker_connection_timeout": SOCKET_CONNECT_TIMEOUT_S,
        "broker_connection_retry_on_startup": True,
        "broker_connection_max_retries": None,  # workers ride out a Redis restart
        "task_publish_retry_policy": {"max_retries": 3, "interval_start": 0,
                                      "interval_step": 0.5, "interval_max": 1},
        # wire format
        "task_serializer": "json",
        "result_serializer": "json",
        "event_serializer": "json",
        "accept_content": ["json"],
        "result_accept_content": ["json"],
        # delivery
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "task_acks_on_failure_or_timeout": True,
        "worker_prefetch_multiplier": 1,
        "worker_cancel_long_running_tasks_on_connection_loss": False,
        "worker_soft_shutdown_timeout": 3.0,
        "worker_enable_soft_shutdown_on_idle": True,
        "worker_max_tasks_per_child": 100,
        # results live in fuzzfarm's own keys (fuzzfarm.farm.store), not in Celery's backend
        "task_ignore_result": True,
        "result_expires": 24 * 3600,
        # time limits for collector tasks; fuzz slices get theirs per message
        "task_soft_time_limit": COLLECT_SOFT_LIMIT_S,
        "task_time_limit": COLLECT_HARD_LIMIT_S,
        # routing
        "task_default_queue": COLLECT_QUEUE,
        "task_create_missing_queues": True,
        "task_routes": {TASK_FUZZ: {"queue": FUZZ_QUEUE},
                        TASK_INTAKE: {"queue": COLLECT_QUEUE},
                        TASK_MINIMIZE: {"queue": COLLECT_QUEUE},
                        TASK_VERIFY: {"queue": COLLECT_QUEUE},
                        TASK_FIX_CHECK: {"queue": COLLECT_QUEUE},
                        TASK_PROVE: {"queue": COLLECT_QUEUE},
                        TASK_MERGE: {"queue": COLLECT_QUEUE}},
        "worker_redirect_stdouts_level": "INFO",
        # task events on for every worker, however started (the same as -E): Flower and
        # `celery events` see the fleet's tasks; a few small messages per slice or triage step
        "worker_send_task_events": True,
        "task_send_sent_event": True,
    }
    # Always set, False for redis://: configure() updates the app's settings in place, so a
    # process that used a rediss:// URL before would otherwise keep speaking TLS to a plain Redis.
    conf["broker_use_ssl"] = dict(ssl_opts) if ssl_opts else False
    conf["redis_backend_use_ssl"] = dict(ssl_opts) if ssl_opts else False
    return conf
