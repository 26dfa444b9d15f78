"""The wire is JSON only: a pickled (or YAML) task message published straight onto the ``fuzz``
and ``collect`` queues with kombu is refused and logged by the worker, never deserialized (the
pickle would create a marker file when loaded), and the workers go on serving real jobs."""

from __future__ import annotations

import pickle
import uuid

import faultlib
from fuzzfarm.farm import redis_url

REFUSED = "Refusing to deserialize untrusted content of type"


class _Evil:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))  # loading this pickle creates the file


def publish_raw(url: str, queue: str, body: bytes, content_type: str, task: str) -> str:
    """A Celery-protocol-2 looking message with any body/content type, straight onto ``queue``."""
    from kombu import Connection

    tid = f"hostile-{uuid.uuid4().hex[:8]}"
    with Connection(redis_url.without_ssl_query(url), ssl=redis_url.ssl_options(url) or False) as conn:
        ch = conn.default_channel
        msg = ch.prepare_message(body, content_type=content_type, content_encoding="binary",
                                 headers={"task": task, "id": tid, "lang": "py", "argsrepr": "()",
                                          "kwargsrepr": "{}", "retries": 0},
                                 properties={"delivery_tag": tid})
        ch.basic_publish(msg, exchange="", routing_key=queue)
    return tid


def test_pickled_messages_are_refused_and_logged_never_run(secure_farm, sst, tmp_path):
    markers = {q: tmp_path / f"unpickled-on-{q}" for q in ("fuzz", "collect")}
    for q, task in (("fuzz", "fuzzfarm.fuzz_job"), ("collect", "fuzzfarm.intake")):
        body = pickle.dumps(((_Evil(str(markers[q])),), {}, {"callbacks": None}))
        publish_raw(secure_farm.url, q, body, "application/x-python-serialize", task)
    publish_raw(secure_farm.url, "fuzz", b"!!python/object/apply:os.system ['touch /tmp/ff-yaml']\n",
                "application/x-yaml", "fuzzfarm.fuzz_job")
    fuzz, collect = secure_farm.workers
    faultlib.wait_until(lambda: all(f"{REFUSED} {t}" in fuzz.log_text() for t in ("pickle", "yaml"))
                        and f"{REFUSED} pickle" in collect.log_text(), 30,
                        "both workers to refuse the hostile messages")
    faultlib.wait_until(lambda: faultlib.drained(sst), 10, "the hostile messages to be dropped")
    for q, m in markers.items():
        assert not m.exists(), f"a pickle was loaded by the {q} worker"
    # nothing crashed; both queues still serve real (JSON) work
    assert fuzz.alive() and collect.alive()
    cid = faultlib.submit(sst, "ff-crashy", duration=4)
    faultlib.wait_until(lambda: faultlib.campaign_settled(sst, cid), 90, "a real campaign after the hostile messages")
    s = sst.campaign_summary(cid)
    assert s["status"] == "done" and s["buckets"] == 1, s
    print(f"wire test over {secure_farm.mode} Redis with a password")
