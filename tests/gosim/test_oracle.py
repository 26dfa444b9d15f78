"""The failure oracle: deadlock ("all goroutines are asleep"), goroutine leak at scenario end
(opt-out), step limit (livelock); every failure carries kind, message, failing goroutine,
every goroutine's stack and the decision index, like Go's crash dump."""

import json

from fuzzfarm import gosim
from fuzzfarm.gosim import ALL_FAILURES, Deadlock, GoroutineLeak, StepLimitExceeded

from gosim_helpers import fails, ok, run_bytes


def _ab_ba():
    def main():
        a, b = gosim.Mutex("A"), gosim.Mutex("B")
        done = gosim.Chan()

        def other():
            with b:
                gosim.sleep(1)
                with a:
                    pass
            done.send(None)

        gosim.go(other)
        with a:
            gosim.sleep(1)
            with b:
                pass
        done.recv()

    return main


def test_deadlock_is_reported_with_every_blocked_goroutine_and_where_it_waits():
    f = fails(run_bytes(_ab_ba()), Deadlock, gid=1)
    assert f.detail == "all goroutines are asleep - deadlock!" and f.fatal
    assert [(d.gid, d.state, d.wait) for d in f.dumps] == [(1, "blocked", "sync.Mutex.Lock"),
                                                           (2, "blocked", "sync.Mutex.Lock")]
    main_frames = [fr.func for fr in f.dumps[0].stack]
    other_frames = [fr.func for fr in f.dumps[1].stack]
    assert main_frames[0] == "_ab_ba.main" and other_frames[0] == "_ab_ba.main.other"
    assert f.dumps[0].stack[0].file == "test_oracle.py"
    assert f.dumps[1].stack[0].line != f.dumps[0].stack[0].line
    assert f.dumps[1].created_by.startswith("_ab_ba.main (test_oracle.py:")
    text = f.render()
    assert "goroutine 1 [main] blocked on sync.Mutex.Lock" in text
    assert "goroutine 2 [_ab_ba.main.other] blocked on sync.Mutex.Lock" in text


def test_deadlock_when_the_last_other_goroutine_exits_while_main_waits():
    def main():
        ch = gosim.Chan()
        gosim.go(lambda: None)  # exits without sending
        ch.recv()

    for data in (b"", b"\x01"):
        f = fails(run_bytes(main, data), Deadlock, gid=1)
        assert f.dumps[0].wait == "chan receive"
        f = fails(run_bytes(main, data, check_leaks=False), Deadlock, gid=1)


def test_no_deadlock_while_a_timer_can_still_wake_someone():
    def main():
        ch = gosim.Chan()
        gosim.after_func(100, lambda: ch.send(1))
        assert ch.recv() == 1

    ok(run_bytes(main))


def test_a_harness_test_timeout_timer_turns_a_hang_into_a_report():
    def main():
        stuck = gosim.Chan()
        idx, _, _ = gosim.select(gosim.recv_case(stuck), gosim.recv_case(gosim.after(30)))
        if idx == 1:
            raise TimeoutError("wait timed out after 30s")

    f = fails(run_bytes(main), gosim.GoroutinePanic, gid=1)
    assert f.now == 30.0 and isinstance(f.cause, TimeoutError)


def test_leak_at_scenario_end():
    def main():
        ch = gosim.Chan()
        gosim.go(ch.send, 1)  # nobody ever receives

    f = fails(run_bytes(main), GoroutineLeak, gid=2)
    assert "1 goroutine(s) still alive after main returned: G2" in f.detail
    assert f.dumps[0].wait == "chan send"


def test_leak_check_opt_out():
    def main():
        gosim.go(gosim.Chan().send, 1)

    ok(run_bytes(main, check_leaks=False))


def test_goroutines_get_a_grace_period_of_virtual_time_to_finish():
    def main():
        gosim.go(gosim.sleep, 10)

    ok(run_bytes(main, leak_grace=60))
    f = fails(run_bytes(main, leak_grace=5), GoroutineLeak, gid=2)
    assert f.dumps[0].wait == "sleep"


def test_a_ticker_loop_left_running_is_a_leak():
    def main():
        tk = gosim.new_ticker(1)

        def poller():
            while True:
                tk.c.recv()

        gosim.go(poller)

    f = fails(run_bytes(main), GoroutineLeak, gid=2)
    assert f.now == 60.0


def test_step_limit_catches_a_livelock():
    def main():
        flag = []
        while not flag:  # waits for something nobody will ever do
            gosim.gosched()

    f = fails(run_bytes(main, max_steps=1000), StepLimitExceeded, gid=1)
    assert "more than 1000 scheduling steps" in f.detail
    assert f.crash_state == ["test_step_limit_catches_a_livelock.main"]


def test_failure_carries_kind_message_goroutine_stacks_decision_index_and_time():
    def main():
        m = gosim.Mutex()
        gosim.go(m.lock)
        gosim.go(gosim.Chan().recv)
        gosim.sleep(2)
        m.unlock()  # G2 holds it, main did not: unlocking is allowed in Go ...
        m.unlock()  # ... but not twice

    rep = run_bytes(main, b"\x00\x00")
    f = fails(rep, gosim.UnlockOfUnlockedMutex, gid=1)
    assert f.kind == "unlock of unlocked mutex" and f.detail == "sync: unlock of unlocked mutex"
    assert f.goroutine_name == "main" and f.now == 2.0
    assert f.decision == len(rep.decisions)
    assert [d.gid for d in f.dumps] == [1, 3]  # G2 finished; G3 is still blocked
    assert f.dumps[0].state == "running" and f.dumps[1].wait == "chan receive"
    js = f.to_json()
    assert json.loads(json.dumps(js)) == js
    assert set(js) >= {"kind", "message", "goroutine", "crash_state", "decision", "now", "dumps"}
    assert js["dumps"][0]["stack"][0]["func"].endswith("main")


def test_every_failure_kind_has_its_own_class_and_kind_string():
    kinds = [c.kind for c in ALL_FAILURES]
    assert len(set(kinds)) == len(kinds) == 14  # 13 + data race (issue 11)
    assert all(issubclass(c, gosim.GoFailure) for c in ALL_FAILURES)


def test_only_the_first_failure_counts():
    def main():
        def second():
            gosim.Chan().close()
            gosim.Chan(0).close()

        gosim.go(second)
        try:
            gosim.Mutex().unlock()
        finally:
            gosim.close(None)  # raised while the first failure unwinds

    f = fails(run_bytes(main), gosim.UnlockOfUnlockedMutex, gid=1)
    assert f.kind == "unlock of unlocked mutex"


def test_program_code_swallowing_a_failure_cannot_undo_it():
    def main():
        try:
            gosim.Chan(1).close()
            gosim.close(None)
        except Exception:
            pass
        gosim.gosched()  # the run is over: this unwinds the goroutine

    fails(run_bytes(main), gosim.CloseOfNilChannel, gid=1)


def test_teardown_of_parked_goroutines_never_creates_a_failure():
    def main():
        m = gosim.Mutex()

        def cond_waiter():
            try:
                gosim.Chan().recv()
            finally:
                m.unlock()  # would be unlock-of-unlocked, but the run is already over

        gosim.go(cond_waiter)
        gosim.sleep(1)

    ok(run_bytes(main, check_leaks=False))
