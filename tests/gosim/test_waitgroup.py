"""sync.WaitGroup (docs/RUNTIME.md#waitgroup): negative counter panics; an Add from zero while a Wait is still
returning panics with "WaitGroup is reused before previous Wait has returned"."""

from fuzzfarm import gosim
from fuzzfarm.gosim import Deadlock, NegativeWaitGroupCounter, WaitGroupReuse

from gosim_helpers import Prefer, fails, ok, run_bytes


def test_wait_returns_when_the_counter_reaches_zero():
    log = []

    def main():
        wg = gosim.WaitGroup()
        wg.add(2)
        for d in (1, 3):
            def w(d=d):
                gosim.sleep(d)
                wg.done()
            gosim.go(w)
        wg.wait()
        log.append(gosim.now())
        wg.wait()  # counter is zero: returns at once
        log.append(gosim.now())

    ok(run_bytes(main))
    assert log == [3.0, 3.0]


def test_negative_counter_panics():
    def main():
        wg = gosim.WaitGroup()
        wg.add(1)
        wg.done()
        wg.done()

    f = fails(run_bytes(main), NegativeWaitGroupCounter, gid=1)
    assert f.detail == "sync: negative WaitGroup counter"
    assert f.kind == "negative WaitGroup counter"


def test_reuse_before_the_previous_wait_has_returned_panics_in_wait():
    def main():
        wg = gosim.WaitGroup()
        wg.add(1)

        def worker():
            wg.done()  # releases main's Wait ...
            wg.add(1)  # ... and re-arms the group before main resumes

        gosim.go(worker)
        wg.wait()

    # default schedule: main parks in Wait, the worker runs done() and add(1) back to back
    f = fails(run_bytes(main), WaitGroupReuse, gid=1)
    assert f.detail == "sync: WaitGroup is reused before previous Wait has returned"
    assert f.crash_state[0].endswith("main")


def test_reuse_after_wait_returned_is_fine():
    def main():
        wg = gosim.WaitGroup()
        for _ in range(3):
            wg.add(1)
            gosim.go(wg.done)
            wg.wait()

    ok(run_bytes(main))


def test_the_same_add_is_harmless_when_wait_resumes_first():
    def scenario(after_done_order):
        s = Prefer(1, 2)

        def main():
            wg = gosim.WaitGroup()
            wg.add(1)

            def worker():
                wg.done()
                s.order = after_done_order  # who runs at the worker's next scheduling point
                gosim.gosched()
                wg.add(1)
                s.order = [1, 2]  # main resumes before the matching done()
                wg.done()

            gosim.go(worker)
            wg.wait()
            gosim.sleep(1)

        return gosim.run(main, strategy=s)

    ok(scenario([1, 2]))  # main's Wait returns before the worker's add(1)
    fails(scenario([2, 1]), WaitGroupReuse, gid=1)  # the add(1) lands before main resumes


def test_add_and_done_both_landing_before_wait_resumes_is_not_detected_as_in_go():
    # Go's Wait re-checks the whole state word only: counter back at zero looks like no reuse
    s = Prefer(1, 2)

    def main():
        wg = gosim.WaitGroup()
        wg.add(1)

        def worker():
            wg.done()
            s.order = [2, 1]
            wg.add(1)
            wg.done()

        gosim.go(worker)
        wg.wait()

    ok(gosim.run(main, strategy=s))


def test_wait_with_nobody_to_call_done_deadlocks():
    def main():
        wg = gosim.WaitGroup()
        wg.add(1)
        wg.wait()

    f = fails(run_bytes(main), Deadlock, gid=1)
    assert f.dumps[0].wait == "sync.WaitGroup.Wait"
