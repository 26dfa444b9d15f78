"""The Celery configuration and Redis URL handling (no Redis needed)."""

from __future__ import annotations

import ssl

import pytest

from fuzzfarm.farm import config, redis_url

URL = "redis://:s3cr3t-pw@127.0.0.1:6390/0"


@pytest.fixture
def conf():
    return config.celery_config(URL)


def test_json_only_on_the_wire(conf):
    assert conf["task_serializer"] == conf["result_serializer"] == conf["event_serializer"] == "json"
    assert conf["accept_content"] == ["json"] and conf["result_accept_content"] == ["json"]


def test_delivery_semantics(conf):
    assert conf["task_acks_late"] is True
    assert conf["task_reject_on_worker_lost"] is True
    assert conf["worker_prefetch_multiplier"] == 1
    assert config.MAX_DELIVERIES >= 2


def test_visibility_timeout_exceeds_longest_task_and_is_mirrored(conf):
    vt = conf["broker_transport_options"]["visibility_timeout"]
    assert vt == conf["result_backend_transport_options"]["visibility_timeout"]
    soft, hard = config.fuzz_time_limits(config.MAX_SLICE_S)
    assert vt > hard and vt > conf["task_time_limit"]
    # docs/TRAPS.md#g12: restore sweeps are not throttled
    assert conf["broker_transport_options"]["unacked_restore_throttle"] == 1
    assert conf["broker_transport_options"]["unacked_restore_interval"] <= 10


def test_soft_limits_below_hard_limits(conf):
    assert conf["task_soft_time_limit"] < conf["task_time_limit"]
    for s in (1, 5, 60, config.MAX_SLICE_S):
        soft, hard = config.fuzz_time_limits(s)
        assert s < soft < hard


def test_routes(conf):
    r = conf["task_routes"]
    assert r[config.TASK_FUZZ] == {"queue": "fuzz"}
    for t in (config.TASK_INTAKE, config.TASK_MINIMIZE, config.TASK_VERIFY, config.TASK_FIX_CHECK):
        assert r[t] == {"queue": "collect"}


def test_app_tasks_are_registered_under_routed_names():
    from fuzzfarm.farm import app, tasks  # noqa: F401
    names = set(app.tasks)
    for t in (config.TASK_FUZZ, config.TASK_INTAKE, config.TASK_MINIMIZE, config.TASK_VERIFY, config.TASK_FIX_CHECK):
        assert t in names
    assert {q.name for q in app.conf.task_queues} == {"fuzz", "collect"}


def test_password_never_in_transport_options(conf):
    """celery #9563: broker_transport_options are shown unmasked by `celery inspect stats`."""
    assert "s3cr3t-pw" not in repr(conf["broker_transport_options"])
    assert "s3cr3t-pw" not in repr(conf["result_backend_transport_options"])
    assert "password" not in conf["broker_transport_options"]


def test_socket_timeouts_so_a_dead_redis_never_hangs(conf):
    t = conf["broker_transport_options"]
    assert 0 < t["socket_connect_timeout"] <= 5 and t["socket_timeout"] > 0
    assert 0 < conf["redis_socket_connect_timeout"] <= 5


@pytest.mark.parametrize("url, masked", [
    ("redis://:pw@h:6379/0", "redis://:***@h:6379/0"),
    ("redis://user:pw@h:6379/0", "redis://user:***@h:6379/0"),
    ("rediss://:p%40ss@h:6380/1?ssl_cert_reqs=none", "rediss://:***@h:6380/1?ssl_cert_reqs=none"),
    ("redis://h:6379/0", "redis://h:6379/0"),
    ("redis://:a@b@h:6379/0", "redis://:***@h:6379/0"),
])
def test_mask(url, masked):
    assert redis_url.mask(url) == masked


def test_mask_text_hides_the_password_anywhere():
    text = "Error connecting to redis://:topsecret@h:1/0 with password topsecret"
    m = redis_url.mask_text(text, "redis://:topsecret@h:1/0")
    assert "topsecret" not in m and "***" in m


def test_rediss_urls_get_tls_settings():
    url = "rediss://:pw@redis.example:6380/0"
    conf = config.celery_config(url)
    assert conf["broker_use_ssl"] == {"ssl_cert_reqs": ssl.CERT_REQUIRED}
    assert conf["redis_backend_use_ssl"] == {"ssl_cert_reqs": ssl.CERT_REQUIRED}
    conf = config.celery_config(url + "?ssl_cert_reqs=none&ssl_ca_certs=/etc/ca.pem")
    assert conf["broker_use_ssl"] == {"ssl_cert_reqs": ssl.CERT_NONE, "ssl_ca_certs": "/etc/ca.pem"}
    assert "ssl_" not in conf["broker_url"] and conf["broker_url"].startswith("rediss://")
    plain = config.celery_config("redis://h:6379/0")  # TLS off, explicitly (configure() updates in place)
    assert plain["broker_use_ssl"] is False and plain["redis_backend_use_ssl"] is False


def test_celery_backend_accepts_a_rediss_url():
    """Celery's Redis backend insists on ssl_cert_reqs for rediss://; our settings provide it."""
    from celery import Celery
    a = Celery("t")
    a.conf.update(config.celery_config("rediss://:pw@127.0.0.1:1/0"))
    backend = a.backend  # raises ValueError without ssl_cert_reqs
    assert backend.connparams["ssl_cert_reqs"] == ssl.CERT_REQUIRED
    assert "pw" not in repr(a.conf.humanize(with_defaults=False, censored=True))


@pytest.mark.parametrize("bad", ["http://h:1/0", "h:6379", "redis://h:notaport/0"])
def test_bad_urls_are_refused_with_a_hint(bad):
    with pytest.raises(redis_url.RedisURLError, match="FUZZFARM_REDIS_URL"):
        redis_url.validate(bad)


def test_url_precedence(monkeypatch):
    monkeypatch.delenv(redis_url.ENV, raising=False)
    assert redis_url.from_env() == redis_url.DEFAULT_URL and not redis_url.is_configured()
    monkeypatch.setenv(redis_url.ENV, "redis://env:1/0")
    assert redis_url.from_env() == "redis://env:1/0" and redis_url.is_configured()
    assert redis_url.from_env("redis://flag:2/0") == "redis://flag:2/0"


def test_intake_is_served_before_queued_triage(redis_server, monkeypatch):
    """Redis transport priorities: an intake published after a minimize still comes first."""
    from fuzzfarm.farm import app, configure, tasks
    from fuzzfarm.farm.store import Store
    st = Store(redis_server.url)
    st.r.flushdb()
    monkeypatch.setenv(redis_url.ENV, redis_server.url)  # restored afterwards
    configure(redis_server.url)
    tasks._enqueue_triage(tasks.minimize)("b1")
    tasks.enqueue_intake("c1", "checker", "buggy", "s" * 64)
    with app.connection_for_read() as conn:
        conn.default_channel.basic_qos(prefetch_count=1)
        first = conn.default_channel.basic_get("collect")
        second = conn.default_channel.basic_get("collect")
    assert first.headers["task"] == config.TASK_INTAKE and second.headers["task"] == config.TASK_MINIMIZE
    assert config.INTAKE_PRIORITY < config.TRIAGE_PRIORITY


def test_steps_are_served_in_the_order_the_user_waits_for_them(redis_server, monkeypatch):
    """Whatever the order they were enqueued in: a bucket's first reproducer (intake), then
    minimizations and verify replays (first come first served), then fix checks, then proofs."""
    from fuzzfarm.farm import app, configure, tasks
    from fuzzfarm.farm.store import Store
    st = Store(redis_server.url)
    st.r.flushdb()
    monkeypatch.setenv(redis_url.ENV, redis_server.url)
    configure(redis_server.url)
    tasks._enqueue_triage(tasks.prove, config.PROOF_PRIORITY)("b1")  # what fix_check(b1) enqueues
    tasks._enqueue_triage(tasks.fix_check, config.FIX_CHECK_PRIORITY)("b2")  # what verify(b2) enqueues
    tasks._enqueue_triage(tasks.verify, config.VERIFY_PRIORITY)("b3")  # what minimize(b3) enqueues
    tasks._enqueue_triage(tasks.minimize)("b4")  # what intake enqueues for a new bucket
    tasks.enqueue_intake("c1", "checker", "buggy", "s" * 64)
    with app.connection_for_read() as conn:
        conn.default_channel.basic_qos(prefetch_count=1)
        got = [conn.default_channel.basic_get("collect").headers["task"] for _ in range(5)]
    assert got == [config.TASK_INTAKE, config.TASK_VERIFY, config.TASK_MINIMIZE, config.TASK_FIX_CHECK,
                   config.TASK_PROVE]


def test_proofs_take_all_but_one_process():
    assert [config.proof_slots(n) for n in (1, 2, 3, 8)] == [1, 1, 2, 7]


def test_configure_redirects_publishing_to_the_new_redis(redis_server, tmp_path, monkeypatch):
    """After messages went to one Redis, configure() sends the next ones to another."""
    from fuzzfarm.farm import configure, tasks
    from fuzzfarm.farm.embedded import RedisServer
    from fuzzfarm.farm.store import Store
    monkeypatch.setenv(redis_url.ENV, redis_server.url)
    with RedisServer(str(tmp_path)) as other:
        first, second = Store(redis_server.url), Store(other.url)
        first.r.flushdb()
        configure(redis_server.url)
        tasks.enqueue_intake("c1", "checker", "buggy", "a" * 64)
        configure(other.url)
        tasks.enqueue_intake("c1", "checker", "buggy", "b" * 64)
        assert first.r.llen("collect") == 1 and second.r.llen("collect") == 1
        # the result backend follows too (a send waiting for a result subscribed at the old Redis:
        # refused once that one is gone)
        from fuzzfarm.farm import app
        assert app.backend.connparams["port"] == other.port
        configure(redis_server.url)
        assert app.backend.connparams["port"] == int(redis_server.url.rsplit(":", 1)[1].split("/")[0])
