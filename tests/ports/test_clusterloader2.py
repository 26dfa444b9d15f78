"""clusterloader2 WaitForControlledPodsRunning port: upstream behaviour on the normal paths,
the building blocks, and the hand-written crashing interleavings S1, S2, S3 (docs/ports/clusterloader2.md#interleavings)."""

from __future__ import annotations

import pytest
from test_clusterloader2_support import PriorityStrategy, run_scenario

from fuzzfarm import gosim
from fuzzfarm.gosim.failures import GoroutineLeak, GoroutinePanic, WaitGroupReuse
from fuzzfarm.ports.clusterloader2 import CheckerMap, ObjectChecker, ObjectStatus
from fuzzfarm.ports.clusterloader2.handling_group import Group
from fuzzfarm.ports.clusterloader2.worker_queue import WorkerQueue
from fuzzfarm.strategies import RandomStrategy, ReplayStrategy

VARIANTS = ("buggy", "fixed")
S1_STATE = ["ObjectChecker.stop", "CheckerMap.delete_and_stop", "WaitForControlledPods.delete_object_locked"]
S2_STATE = ["ObjectChecker.stop", "CheckerMap.add", "WaitForControlledPods.handle_object_locked"]
S3_STATE = ["ObjectChecker.stop", "CheckerMap.dispose", "WaitForControlledPods.dispose"]


def checker_of(w, name: str) -> ObjectChecker:
    return w.checker_map.snapshot()[f"test/{name}"]


def assert_nil_cancel_panic(failure, state, goroutine_name):
    assert isinstance(failure, GoroutinePanic), failure
    assert failure.kind == "goroutine panic"
    assert isinstance(failure.cause, TypeError)
    assert failure.exc_class == "TypeError"
    assert "'NoneType' object is not callable" in failure.detail
    assert failure.crash_state == state
    assert failure.goroutine_name == goroutine_name


# ---------------------------------------------------------------------------- normal paths
@pytest.mark.parametrize("variant", VARIANTS)
def test_add_then_pods_ready_is_running(variant):
    out = run_scenario(variant, lambda sb: sb.create("a", 2, ready_after=12), gather=True)
    assert out.failure is None
    assert out.start_err is None and out.gather_err is None
    o = checker_of(out.w, "a")
    assert o.status == ObjectStatus.RUNNING and o.err is None
    assert o.duration == 15.0  # the first 5 s tick at or after t=12
    assert out.w.logs[-2:] == ["WaitForControlledPodsRunning: running 1, deleted 0, timeout: 0, failed: 0",
                               "WaitForControlledPodsRunning: 1/1 Deployments are running with all pods"]
    assert out.w.object_keys == {"test/a"} and out.w.op_resource_version == 1


@pytest.mark.parametrize("variant", VARIANTS)
def test_spec_update_stops_old_checker_and_starts_new_one(variant):
    def build(sb):
        sb.create("a", 2, ready_after=None)  # the first template never gets ready
        sb.update_spec("a", 3, at=20, ready_after=3)

    def peek(w, seen):
        seen["first"] = checker_of(w, "a")

    out = run_scenario(variant, build, peek=peek, peek_at=10, sleep=30, gather=True)
    assert out.failure is None and out.gather_err is None
    first, second = out.seen["first"], checker_of(out.w, "a")
    assert first is not second
    # Stopped at t=20 by delete_and_stop: cancelled counts as a timeout at this version.
    assert first.status == ObjectStatus.TIMEOUT and first.duration == 20.0
    assert second.status == ObjectStatus.RUNNING and second.duration == 5.0


@pytest.mark.parametrize("variant", VARIANTS)
def test_status_only_update_keeps_the_checker(variant):
    def build(sb):
        sb.create("a", 1, ready_after=0)
        sb.update_status("a", at=7)

    def peek(w, seen):
        seen["first"] = checker_of(w, "a")

    out = run_scenario(variant, build, peek=peek, peek_at=1, sleep=10, gather=True)
    assert out.failure is None and out.gather_err is None
    assert checker_of(out.w, "a") is out.seen["first"]
    assert out.w.op_resource_version == 2  # the cache still moves on


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("tombstone", [False, True])
def test_delete_is_deleted(variant, tombstone):
    def build(sb):
        sb.create("a", 2, ready_after=0)
        sb.delete("a", at=10, ready_after=3, tombstone=tombstone)

    out = run_scenario(variant, build, sleep=11, gather=True)
    assert out.failure is None and out.gather_err is None
    o = checker_of(out.w, "a")
    assert o.status == ObjectStatus.DELETED and o.duration == 5.0
    assert out.w.object_keys == set()
    assert out.w.logs[-2] == "WaitForControlledPodsRunning: running 0, deleted 1, timeout: 0, failed: 0"


@pytest.mark.parametrize("variant", VARIANTS)
def test_operation_timeout_is_timeout(variant):
    out = run_scenario(variant, lambda sb: sb.create("a", 2, ready_after=None), gather=True, operation_timeout=30)
    assert out.failure is None
    o = checker_of(out.w, "a")
    assert o.status == ObjectStatus.TIMEOUT and o.duration == 30.0
    assert len(o.failed_pods) == 2
    assert str(o.err).startswith("test/a: timeout while waiting for 2 pods to be running")
    assert str(out.gather_err) == ("1 objects timed out: Deployments: test/a; pods not running: "
                                   + ", ".join(o.failed_pods))


@pytest.mark.parametrize("variant", VARIANTS)
def test_gather_counts_statuses_as_upstream(variant):
    def build(sb):
        sb.create("run", 1, ready_after=0)
        sb.create("slow", 1, ready_after=None)  # -> timeout
        sb.create("gone", 1, ready_after=0)
        sb.delete("gone", at=1, ready_after=0)  # -> deleted

    out = run_scenario(variant, build, sleep=2, gather=True, operation_timeout=30)
    assert out.failure is None
    assert out.w.logs[-1] == "WaitForControlledPodsRunning: running 1, deleted 1, timeout: 1, failed: 0"
    assert str(out.gather_err) == "1 objects timed out: Deployments: test/slow; pods not running: slow-2-0"

    # deleteTimeout also counts as a timeout, and gather deletes pods through the API for it.
    def build2(sb):
        sb.create("a", 1, ready_after=0)
        sb.delete("a", at=1, ready_after=None)

    out = run_scenario(variant, build2, sleep=2, gather=True, operation_timeout=30)
    assert checker_of(out.w, "a").status == ObjectStatus.DELETE_TIMEOUT
    assert str(out.gather_err) == "1 objects timed out: Deployments: test/a"
    assert out.w.cluster.pod_collection_deletions == 1

    # Fewer running checkers than listed objects: "incorrect objects number".
    def build3(sb):
        sb.create("a", 1, ready_after=0)
        sb.create("b", 1, ready_after=0)

    def force_b_deleted(w, seen):  # both checkers finished at t=5; pretend b's ended as deleted
        o = checker_of(w, "b")
        with o.lock:  # status is a checked field: written under o.lock, as every writer does
            o.status = ObjectStatus.DELETED

    out = run_scenario(variant, build3, peek=force_b_deleted, peek_at=6, gather=True)
    assert out.failure is None
    assert str(out.gather_err) == "incorrect objects number: 1/2 Deployments are running with all pods"


@pytest.mark.parametrize("variant", VARIANTS)
def test_gather_before_start_and_sync_timeout(variant):
    def main():
        from fuzzfarm.ports.clusterloader2 import ScriptBuilder, WaitForControlledPods
        w = WaitForControlledPods(ScriptBuilder().build(), variant)
        assert str(w.gather()) == "metric WaitForControlledPodsRunning has not been started"
        w.dispose()  # not running: nothing to do
        w.queue.stop()

    assert gosim.run(main, strategy=PriorityStrategy()).failure is None

    # An object created after gather's LIST never matches it (P9): gather times out.
    out = run_scenario(variant, lambda sb: sb.create("late", 1, at=3), gather=True, sync_timeout=15)
    assert out.failure is None
    assert str(out.gather_err) == "timed out while waiting for controlled pods: timed out waiting for the condition"


# ---------------------------------------------------------------------------- building blocks
def test_checker_map_dispose_never_empties_the_map():
    stopped = []

    class Fake:
        def __init__(self, k):
            self.k = k

        def stop(self):
            stopped.append(self.k)

    def main():
        cm = CheckerMap()
        cm.add("a", Fake("a"))
        cm.add("b", Fake("b"))
        cm.add("a", Fake("a2"))  # replaces: stops the old one first
        assert stopped == ["a"]
        assert cm.delete_and_stop("b") is True and cm.delete_and_stop("b") is False
        assert stopped == ["a", "b"]
        cm.add("c", Fake("c"))
        cm.dispose()
        assert sorted(stopped) == ["a", "a2", "b", "c"]
        assert sorted(cm.snapshot()) == ["a", "c"]  # P1: still there

    assert gosim.run(main, strategy=RandomStrategy(3)).failure is None


def test_object_checker_stop_with_nil_cancel_panics_and_releases_lock():
    def main():
        o = ObjectChecker("test/x")
        assert o.get_status() == (ObjectStatus.UNKNOWN, None)
        try:
            o.stop()
        except TypeError:
            pass
        assert not o.lock.locked  # the deferred unlock ran while the panic unwound
        calls = []
        o.set_cancel(lambda: calls.append(1))
        o.stop()
        assert calls == [1]

    assert gosim.run(main, strategy=RandomStrategy(1)).failure is None


@pytest.mark.parametrize("seed", range(8))
def test_worker_queue_fifo_drain_on_stop_and_drop_after_shutdown(seed):
    ran = []

    def main():
        q = WorkerQueue(1)
        for i in range(5):
            q.add(lambda i=i: ran.append(i))
        q.stop()
        q.add(lambda: ran.append("late"))  # dropped silently
        gosim.sleep(1)

    rep = gosim.run(main, strategy=RandomStrategy(seed))
    assert rep.failure is None
    assert ran == [0, 1, 2, 3, 4]


def test_handling_group_adds_in_the_caller():
    def main():
        g = Group("g")
        ran = []
        g.start(lambda: ran.append(1))
        assert g.wg.counter == 1 and ran == []  # the goroutine has not run (no preemption)
        g.wait()
        assert ran == [1] and g.wg.counter == 0

    assert gosim.run(main, strategy=PriorityStrategy()).failure is None


def test_no_dispose_leaks_worker_and_informer_and_teardown_is_clean():
    # Without dispose the informer and the worker live on: a leak when checked ...
    out = run_scenario("fixed", lambda sb: sb.create("a", 1), dispose=False)
    assert isinstance(out.failure, GoroutineLeak)
    assert "worker" in out.failure.detail and "informer" in out.failure.detail
    # ... and nothing at all when not (teardown unwinding a cond-wait is not a failure).
    out = run_scenario("fixed", lambda sb: sb.create("a", 1), dispose=False, check_leaks=False)
    assert out.failure is None


# ---------------------------------------------------------------------------- S1, S2, S3
def s1(sb):
    """Add then Delete of the same key, both queued before W runs."""
    sb.create("a", 2, ready_after=0)
    sb.delete("a", ready_after=0)


def s1_update(sb):
    sb.create("a", 2, ready_after=0)
    sb.update_spec("a", 3, ready_after=0)


def s2(sb):
    """o0 for a exists and has its cancel; then a is deleted and re-created."""
    sb.create("a", 2, ready_after=3)
    sb.re_add("a", 1, at=20, ready_after=3)


STARVE_CHECKERS = dict(order=("main", "worker", "informer", "checker"))
# S3: W handles the Add before M disposes (W ahead of M), checkers starved.
S3_ORDER = dict(order=("worker", "informer", "main", "checker"))


@pytest.mark.parametrize("build,state", [(s1, S1_STATE), (s1_update, S1_STATE)], ids=["delete", "update"])
def test_s1_stop_before_checker_ever_ran(build, state):
    buggy = run_scenario("buggy", build, strategy=PriorityStrategy(**STARVE_CHECKERS), sleep=30)
    assert_nil_cancel_panic(buggy.failure, state, "worker")
    assert buggy.report.preemptions == 0  # zero preemptions: W simply keeps running (docs/ports/clusterloader2.md#s1)
    assert buggy.failure.now == 0.0
    # The defers ran while the panic unwound, LIFO: the cache update, then the w.lock unlock.
    assert buggy.w.op_resource_version == 2 and not buggy.w.lock.locked
    assert buggy.w.object_keys == ({"test/a"} if build is s1_update else set())

    fixed = run_scenario("fixed", build, strategy=PriorityStrategy(**STARVE_CHECKERS), sleep=30)
    assert fixed.failure is None


def test_s1_prime_checker_ran_but_lost_the_lock():
    # C1 runs as soon as it is spawned and blocks in set_cancel (W holds o1.lock); W releases
    # o1.lock and re-takes it in stop() before C1 gets it (barging).
    strat = PriorityStrategy(**STARVE_CHECKERS, eager=("checker",))
    buggy = run_scenario("buggy", s1, strategy=strat, sleep=30, trace=True)
    assert_nil_cancel_panic(buggy.failure, S1_STATE, "worker")
    c1 = next(d for d in buggy.failure.dumps if d.name == "checker test/a")
    assert c1.stack[0].func == "ObjectChecker.set_cancel"  # C1 is inside set_cancel, lock lost
    assert run_scenario("fixed", s1, strategy=PriorityStrategy(**STARVE_CHECKERS, eager=("checker",)),
                        sleep=30).failure is None


def test_s2_delete_then_readd_panics_in_checker_map_add():
    buggy = run_scenario("buggy", s2, strategy=PriorityStrategy(**STARVE_CHECKERS), sleep=60)
    # The stack of perf-tests PR #2220: Stop <- checker.Map.Add <- handleObjectLocked <- handleObject.
    assert_nil_cancel_panic(buggy.failure, S2_STATE, "worker")
    assert buggy.failure.stack[3].func == "WaitForControlledPods.handle_object"
    assert buggy.failure.now == 20.0
    fixed = run_scenario("fixed", s2, strategy=PriorityStrategy(**STARVE_CHECKERS), sleep=60, gather=True)
    assert fixed.failure is None
    assert fixed.gather_err is None  # the re-created object's checker ends running


def test_s3_dispose_panics_in_main():
    buggy = run_scenario("buggy", lambda sb: sb.create("a", 2), strategy=PriorityStrategy(**S3_ORDER))
    assert_nil_cancel_panic(buggy.failure, S3_STATE, "main")
    fixed = run_scenario("fixed", lambda sb: sb.create("a", 2), strategy=PriorityStrategy(**S3_ORDER))
    assert fixed.failure is None
    o = checker_of(fixed.w, "a")  # still in the map (P1); stopped before its goroutine ran
    assert o.status == ObjectStatus.TIMEOUT and o.duration == 0.0


@pytest.mark.parametrize("build,kw,state", [
    (s1, dict(strategy=STARVE_CHECKERS, sleep=30), S1_STATE),
    (s2, dict(strategy=STARVE_CHECKERS, sleep=60), S2_STATE),
    (lambda sb: sb.create("a", 2), dict(strategy=S3_ORDER), S3_STATE),
], ids=["S1", "S2", "S3"])
def test_recorded_schedule_replays_exactly(build, kw, state):
    kw = dict(kw, strategy=PriorityStrategy(**kw["strategy"]))
    first = run_scenario("buggy", build, **kw)
    assert first.failure.crash_state == state
    again = run_scenario("buggy", build, **dict(kw, strategy=ReplayStrategy(first.report.decisions)))
    assert again.failure.crash_state == state
    assert again.report.decisions == first.report.decisions
    assert again.report.steps == first.report.steps


# ---------------------------------------------------------------------------- P3(b), both variants
@pytest.mark.parametrize("variant", VARIANTS)
def test_p3b_late_event_during_gather_wait_reuses_the_waitgroup(variant):
    """gather's handling_group.wait() is released by the last checker's done(); W, handling an
    event the informer delivers late (after gather's LIST), calls add(1) before M resumes:
    Go panics "WaitGroup is reused before previous Wait has returned" (docs/ports/clusterloader2.md#p3b)."""
    def build(sb):
        sb.create("a", 1, ready_after=None, initial=True)  # its checker ends at the 30 s deadline
        sb.create("late", 1, at=1)

    strat = PriorityStrategy(order=("informer", "checker", "worker", "main"), hold={"informer": (1.0, 30.0)})
    out = run_scenario(variant, build, strategy=strat, gather=True, operation_timeout=30)
    assert isinstance(out.failure, WaitGroupReuse), out.failure
    assert out.failure.crash_state == ["Group.wait", "WaitForControlledPods.gather", "run_scenario.main"]
    assert out.failure.now == 30.0


# ---------------------------------------------------------------------------- gather's unlocked reads
def test_gather_reads_checker_duration_after_get_status_as_upstream():
    """gather reads each checker's ``duration`` (and ``failedPods``) after getStatus released
    ``o.lock`` (wait_for_controlled_pods.go:333, as the Go twin gotwins/checker keeps it): a
    checker goroutine still running, one started past ``handlingGroup.Wait`` (P3(b)), writes it
    under ``o.lock`` later, and Go's race detector reports the pair. Here that goroutine is
    stood for by one that stores the checker's outcome (:643-645) after gather's read."""
    from fuzzfarm.ports.clusterloader2 import FakeCluster, WaitForControlledPods

    def main() -> None:
        w = WaitForControlledPods(FakeCluster(), "fixed")
        w.is_running = True  # started: gather's LIST is empty, so its poll is satisfied at once
        o = ObjectChecker("test/late")
        w.checker_map.add("test/late", o)  # a checker W put in the map before gather took w.lock

        def checker_finishes() -> None:  # the checker goroutine's end: :643-645 under o.lock
            gosim.sleep(10)
            with o.lock:
                o.duration = 10.0
                o.status = ObjectStatus.RUNNING

        gosim.go(checker_finishes, name="checker test/late")
        w.gather(sync_timeout=60)
        w.queue.stop()  # the worker goroutine, stopped as Dispose stops it (no other leak)

    report = gosim.run(main, strategy=PriorityStrategy(), race=True)
    f = report.failure
    assert isinstance(f, gosim.DataRace), f
    assert f.location == "ObjectChecker.duration" and f.previous[0].lower() == "read", f.report()
    assert "WaitForControlledPods.gather" in f.crash_state, f.crash_state
