"""Go statement, Gosched, panics (docs/RUNTIME.md#go: ``go f()`` makes f runnable and the caller keeps
running; any uncaught exception in any goroutine ends the process)."""

import pytest

from fuzzfarm import gosim
from fuzzfarm.gosim import GoroutinePanic, SchedulingError
from fuzzfarm.strategies import ReplayStrategy

from gosim_helpers import Prefer, fails, ok, run_bytes, run_prefer


def test_main_is_goroutine_1_and_ids_follow_creation_order():
    seen = []

    def main():
        seen.append(gosim.goroutine_id())
        ids = [gosim.go(lambda: seen.append(gosim.goroutine_id())) for _ in range(3)]
        seen.append(ids)
        gosim.sleep(1)

    ok(run_bytes(main))
    assert seen[0] == 1 and seen[1] == [2, 3, 4] and sorted(seen[2:]) == [2, 3, 4]


def test_go_is_a_scheduling_point_the_caller_keeps_running_by_default():
    log = []

    def main():
        gosim.go(lambda: log.append("child"))
        log.append("main")
        gosim.sleep(1)

    ok(run_bytes(main, b""))
    assert log == ["main", "child"]
    log.clear()
    ok(run_bytes(main, b"\x01"))  # option 1 of [G1, G2]: the child runs at once
    assert log == ["child", "main"]


def test_a_goroutine_may_never_run_before_main_returns():
    ran = []

    def main():
        gosim.go(lambda: ran.append(1))

    rep = ok(run_bytes(main, b"", check_leaks=False))
    assert ran == [] and rep.goroutines == 2


def test_gosched_lets_the_schedule_switch():
    log = []

    def main():
        gosim.go(lambda: log.append("child"))
        gosim.gosched()
        log.append("main")
        gosim.sleep(1)

    ok(run_bytes(main, b"\x00\x01"))  # stay at go, switch at gosched
    assert log == ["child", "main"]


def test_gosched_spin_loop_progresses_when_the_input_is_exhausted():
    flag = []

    def main():
        gosim.go(lambda: flag.append(1))
        while not flag:
            gosim.gosched()

    rep = ok(run_bytes(main, b"", max_steps=100))
    assert rep.steps < 20


def test_panic_in_a_goroutine_ends_the_run_and_keeps_the_original_exception():
    cancel = None

    def stopper():
        cancel()  # nil func call: Go panics with a nil dereference

    def main():
        gosim.go(stopper)
        gosim.sleep(5)

    f = fails(run_bytes(main), GoroutinePanic, gid=2)
    assert isinstance(f.cause, TypeError)
    assert f.exc_class == "TypeError"
    assert "NoneType" in f.detail
    assert f.crash_state[0] == "test_panic_in_a_goroutine_ends_the_run_and_keeps_the_original_exception.stopper"
    assert f.goroutine_name.endswith("stopper")


def test_panic_in_main():
    def main():
        raise ValueError("boom")

    f = fails(run_bytes(main), GoroutinePanic, gid=1)
    assert f.detail == "ValueError: boom" and isinstance(f.cause, ValueError)


def test_deferred_unlock_runs_while_a_panic_unwinds_but_the_run_still_fails():
    state = {}

    def main():
        m = gosim.Mutex()
        state["m"] = m
        with m:
            raise RuntimeError("panic while holding the lock")

    fails(run_bytes(main), GoroutinePanic, gid=1)
    assert state["m"].locked is False


def test_other_goroutines_may_run_while_a_panic_unwinds_through_a_deferred_unlock():
    log = []

    def main():
        m = gosim.Mutex()

        def other():
            log.append("other ran")

        gosim.go(other)
        with m:
            raise RuntimeError("x")

    # stay at go; at the deferred unlock's scheduling point the schedule runs G2
    rep = run_bytes(main, b"\x00\x00\x01")
    fails(rep, GoroutinePanic, gid=1)
    assert log == ["other ran"]


def test_runs_do_not_nest_and_the_runtime_needs_a_run():
    def main():
        gosim.run(lambda: None, strategy=Prefer())

    f = fails(run_bytes(main), GoroutinePanic)
    assert isinstance(f.cause, RuntimeError) and "nest" in str(f.cause)
    with pytest.raises(RuntimeError, match="no run in progress"):
        gosim.Mutex()
    with pytest.raises(RuntimeError):
        gosim.now()


def test_a_run_after_a_failed_run_starts_clean():
    def bad():
        gosim.go(lambda: gosim.Chan().recv())
        raise KeyError("k")

    def good():
        ch = gosim.Chan(1)
        ch.send(1)
        assert ch.recv() == 1

    fails(run_bytes(bad), GoroutinePanic)
    rep = ok(run_bytes(good))
    assert rep.goroutines == 1


def test_a_diverging_replay_raises_scheduling_error_not_a_program_failure():
    def main():
        gosim.go(lambda: gosim.gosched())
        gosim.gosched()

    with pytest.raises(SchedulingError, match="G7 is not runnable"):
        gosim.run(main, strategy=ReplayStrategy([7]))
    with pytest.raises(SchedulingError, match="ended early"):
        gosim.run(main, strategy=ReplayStrategy([]))


def test_a_strategy_error_inside_a_goroutine_is_not_swallowed_by_program_code():
    class Broken(Prefer):
        def pick(self, runnable, current, timer):
            raise ZeroDivisionError("strategy bug")

    def main():
        try:
            gosim.go(lambda: None)
        except Exception:  # ported code catching everything must not hide it
            pass

    with pytest.raises(ZeroDivisionError):
        gosim.run(main, strategy=Broken())


def test_waitgroup_go_runs_fn_in_a_new_goroutine():
    out = []

    def main():
        wg = gosim.WaitGroup()
        for i in range(3):
            wg.go(out.append, i)
        wg.wait()
        out.append("done")

    ok(run_prefer(main))
    assert out[-1] == "done" and sorted(out[:-1]) == [0, 1, 2]


def test_a_replay_diverging_at_a_decision_taken_after_a_goroutine_exit_raises_scheduling_error():
    def main():
        gosim.go(lambda: None)
        gosim.go(lambda: None)
        gosim.gosched()

    # G2 runs at the first go and exits: the root then picks among [G1] only; at the second go
    # G3 runs and exits; the next pick is made from the root and finds G9 not runnable
    good = gosim.run(main, strategy=ReplayStrategy([2, 3], allow_incomplete=True)).decisions
    assert good == [2, 3]
    with pytest.raises(SchedulingError):
        gosim.run(main, strategy=ReplayStrategy([2, 9]))

    class FailAtTheRoot(Prefer):
        def begin(self, rt):
            self.rt = rt

        def pick(self, runnable, current, timer):
            if self.rt.cur is None:  # a decision taken by the root greenlet after an exit
                raise SchedulingError("boom from the root")
            return super().pick(runnable, current, timer)

    def main2():
        for _ in range(3):
            gosim.go(lambda: None)
        gosim.sleep(1)  # G2 runs and exits; the root then picks between G3 and G4

    with pytest.raises(SchedulingError, match="boom from the root"):
        gosim.run(main2, strategy=FailAtTheRoot(1))
