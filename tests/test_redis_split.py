"""benchmarks/redis_split.py: MONITOR lines split by owner, by connection (what the Redis
traffic benchmark's "fuzzfarm's own" and "Celery's" figures count)."""

from benchmarks.redis_split import CELERY, OURS, UNKNOWN, classify

LINES = [
    'OK',
    '1.0 [0 127.0.0.1:1001] "EVALSHA" "abc" "2" "fuzzfarm:job:1" "fuzzfarm:leases" "x"',
    '1.1 [0 lua] "GET" "fuzzfarm:job:1:claim"',
    '1.2 [0 lua] "ZADD" "fuzzfarm:leases" "1" "j"',
    '1.3 [0 127.0.0.1:1001] "LRANGE" "fuzz" "0" "-1"',  # fuzzfarm's rescue reads kombu's queue
    '1.4 [0 127.0.0.1:1001] "PING"',
    '1.5 [0 127.0.0.1:2002] "BRPOP" "fuzz" "fuzz\\x06\\x163" "3"',
    '1.6 [0 127.0.0.1:2002] "MULTI"',
    '1.7 [0 127.0.0.1:2002] "EVALSHA" "def" "1" "_kombu.binding_deadlines"',
    '1.8 [0 lua] "ZRANGEBYSCORE" "_kombu.binding_deadlines" "-inf" "1"',
    '1.9 [0 127.0.0.1:2002] "EXEC"',
    '2.0 [0 127.0.0.1:3003] "HELLO" "3"',
    '2.1 [0 127.0.0.1:3003] "PING"',
    '2.2 [0 127.0.0.1:4004] "PUBLISH" "/0.celery.pidbox" "{}"',
    '2.3 [0 127.0.0.1:5005] "INFO" "commandstats"',  # the benchmark's own snapshot
]


def test_commands_go_with_their_connection_and_scripts_with_their_caller():
    out = classify(LINES)
    assert out["calls"] == {OURS: 5, CELERY: 6, UNKNOWN: 2}, out
    assert out["commands"][OURS] == {"evalsha": 1, "get": 1, "zadd": 1, "lrange": 1, "ping": 1}
    assert out["commands"][CELERY]["zrangebyscore"] == 1 and out["commands"][CELERY]["publish"] == 1
    assert "info" not in str(out["commands"])
