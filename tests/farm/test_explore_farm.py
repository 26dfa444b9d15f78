"""A distributed dfs search on real Celery workers gives exactly the local count, and again when
a worker's pool process is SIGKILLed in the middle of a subtree (the subtree is redone, nothing
is counted twice)."""

from __future__ import annotations

import os
import signal
import time

import pytest

from fuzzfarm.engine.explore import explore
from fuzzfarm.engine.guard import skip_instrumentation
from fuzzfarm.farm.embedded import Worker

HC03 = b"\x01"  # the examples harness's last byte picks the case: CASE_NAMES[1] = hc03


def _local(variant: str):
    skip_instrumentation()
    import importlib

    import harnesses.examples_race as ex
    os.environ.pop("FUZZFARM_EXAMPLE", None)
    ex = importlib.reload(ex)
    return explore(ex, variant, HC03, bound=2)


@pytest.fixture(scope="module")
def workers(redis_server, tmp_path_factory):
    """Two real fuzz workers (-c 1 each), idle between the tests (each test flushes Redis)."""
    tmp = tmp_path_factory.mktemp("dfs-workers")
    ws = [Worker(redis_server.url, ["fuzz"], concurrency=1, env={"FUZZFARM_DFS_SUBTREE_RUNS": "150"},
                 logfile=str(tmp / f"w{i}.log"), name=f"dfs{i}-{os.getpid()}") for i in range(2)]
    for w in ws:
        w.start()
    for w in ws:
        w.wait_ready()
    yield ws
    for w in ws:
        w.stop()
    for w in ws:
        assert not w.alive()


def _submit(store, variant: str) -> str:
    from fuzzfarm.farm import configure
    from fuzzfarm.farm.explore_tasks import submit

    configure(store.url)
    return submit(store, {"harness": "examples", "variant": variant, "bound": 2, "reduce": True,
                          "all_failures": False}, HC03)


def _settle(store, eid: str, timeout: float = 240.0, on_poll=None) -> dict:
    from fuzzfarm.farm import explore_jobs

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        s = explore_jobs.summary(store, eid)
        if s["settled"]:
            return s
        if on_poll:
            on_poll(s)
        time.sleep(0.2)
    raise AssertionError(f"search {eid} did not settle: {explore_jobs.summary(store, eid)}")


def _ppid(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def _subtree_pool_process(workers) -> int | None:
    """The pool process of one of ``workers`` running a subtree child right now (its parent), or
    None; never a process of another test run's workers."""
    mains = {w.proc.pid for w in workers}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")
            with open(f"/proc/{d}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
        if b"fuzzfarm.engine.explore" in cmd and b"--max-runs=150" in cmd and _ppid(ppid) in mains:
            return ppid
    return None


def test_distributed_count_equals_local(store, workers, tmp_path):
    local = _local("fixed")
    assert local.exhausted and local.schedules > 100
    eid = _submit(store, "fixed")
    s = _settle(store, eid)
    assert s["exhausted"] and not s["failures"] and not s["errors"]
    assert s["schedules"] == local.schedules, s
    assert s["subtrees_done"] > 2  # the tree really was split
    # the farm's search uses the reduction, so its line states the reduction's assumption
    from fuzzfarm.engine.explore import ASSUMPTION
    assert s["line"] == f"proven up to 2 preemptions for this scenario ({local.schedules} schedules), {ASSUMPTION}"
    # `fuzzfarm status` shows the search: subtrees done / pending, schedules, the result
    from farm_fixtures import CLI
    cli = CLI(store.url, str(tmp_path))
    one = cli.json("status", eid)
    assert one["schedules"] == local.schedules and one["subtrees_done"] == s["subtrees_done"]
    p = cli("status", env={"COLUMNS": "250"})
    assert p.returncode == 0 and eid in p.stdout and f"{s['subtrees_done']}/0" in p.stdout, p.stdout


@pytest.mark.slow
def test_distributed_count_survives_a_sigkilled_pool_process(store, workers):
    local = _local("fixed")
    eid = _submit(store, "fixed")
    killed = []

    def kill_once(summary):
        if not killed and summary["subtrees_done"] >= 2:
            pid = _subtree_pool_process(workers)
            if pid:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

    s = _settle(store, eid, on_poll=kill_once)
    assert killed, "no subtree was running when the test tried to kill one: it proved nothing"
    assert s["exhausted"] and not s["errors"], s
    assert s["schedules"] == local.schedules, s
    assert all(w.alive() for w in workers)


def test_distributed_search_stops_on_the_first_failure(store, workers):
    s = _settle(store, _submit(store, "buggy"))
    assert s["failures"] and s["failures"][0]["kind"] == "deadlock"
    assert not s["exhausted"] and "proven" not in s["line"]
    assert s["failures"][0]["reproducer"]


def test_submit_dfs_wait_refuses_to_replace_a_reproducer_without_force(store, workers, tmp_path):
    """``submit --strategy dfs --wait`` writes its counterexample to dfs-<harness>-<variant>.bin
    here: an existing one (an earlier finding) is refused with one line and exit 2 before anything
    is submitted, as ``explore`` does; ``--force`` replaces it."""
    from farm_fixtures import CLI
    from fuzzfarm.farm import explore_jobs

    store.r.flushdb()
    (tmp_path / "input").write_bytes(HC03)
    earlier = tmp_path / "dfs-examples-buggy.bin"
    earlier.write_bytes(b"an earlier finding")
    cli = CLI(store.url, str(tmp_path))
    args = ("submit", "examples", "--variant", "buggy", "--strategy", "dfs", "--input", "input", "--wait",
            "--timeout", "240")
    p = cli(*args)
    assert p.returncode == 2 and p.stdout == "", (p.stdout, p.stderr)
    assert p.stderr.strip().splitlines() == [
        "fuzzfarm: error: dfs-examples-buggy.bin already exists; move it away, or pass --force to overwrite it"], p.stderr
    assert earlier.read_bytes() == b"an earlier finding" and not explore_jobs.ids(store)
    p = cli(*args, "--force")
    assert p.returncode == 1, (p.stdout, p.stderr)  # a counterexample, written over the old file
    assert earlier.read_bytes() not in (b"", b"an earlier finding")
    assert [f.name for f in tmp_path.iterdir() if f.name.endswith(".tmp")] == []
