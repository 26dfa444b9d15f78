"""sync.RWMutex (sync/rwmutex.go): readers share; once a writer waits, new readers block
(writer preference); readers blocked by a writer get the lock when it unlocks."""

from fuzzfarm import gosim
from fuzzfarm.gosim import Deadlock, UnlockOfUnlockedMutex
from fuzzfarm.strategies import RandomStrategy

from gosim_helpers import fails, ok, run_bytes, run_prefer


def test_readers_share_the_lock():
    inside = []

    def main():
        rw = gosim.RWMutex()

        def reader(i):
            rw.rlock()
            inside.append(i)
            gosim.sleep(1)
            inside.append(-i)
            rw.runlock()

        gosim.go(reader, 1)
        gosim.go(reader, 2)
        gosim.sleep(2)

    ok(run_bytes(main))
    assert inside[:2] == [1, 2]  # both inside at t=0


def test_writer_excludes_readers_and_writers():
    for seed in range(100):
        state = {"readers": 0, "writers": 0, "bad": 0}

        def main():
            rw = gosim.RWMutex()
            wg = gosim.WaitGroup()

            def reader():
                with rw.rlocker():
                    state["readers"] += 1
                    state["bad"] += state["writers"] > 0
                    gosim.gosched()
                    state["readers"] -= 1
                wg.done()

            def writer():
                with rw:
                    state["writers"] += 1
                    state["bad"] += state["writers"] > 1 or state["readers"] > 0
                    gosim.gosched()
                    state["writers"] -= 1
                wg.done()

            wg.add(5)
            for f in (reader, writer, reader, writer, reader):
                gosim.go(f)
            wg.wait()

        ok(gosim.run(main, strategy=RandomStrategy(seed)))
        assert state["bad"] == 0


def test_writer_preference_a_waiting_writer_makes_a_new_reader_block():
    log = []

    def main():
        rw = gosim.RWMutex()
        rw.rlock()  # main holds a read lock

        def writer():
            rw.lock()
            log.append(("writer", gosim.now()))
            rw.unlock()

        def late_reader():
            rw.rlock()  # a writer is waiting: this blocks although only readers hold the lock
            log.append(("late reader", gosim.now()))
            rw.runlock()

        gosim.go(writer)
        gosim.sleep(1)  # the writer announces itself and waits for main's read lock
        gosim.go(late_reader)
        gosim.sleep(1)  # the late reader blocks
        log.append(("main runlock", gosim.now()))
        rw.runlock()
        gosim.sleep(1)

    ok(run_bytes(main))
    assert log == [("main runlock", 2.0), ("writer", 2.0), ("late reader", 2.0)]


def test_recursive_read_lock_with_a_waiting_writer_deadlocks_as_in_go():
    def main():
        rw = gosim.RWMutex()
        rw.rlock()
        gosim.go(rw.lock)
        gosim.sleep(1)
        rw.rlock()  # Go's documented deadlock: no recursive read locking

    f = fails(run_bytes(main), Deadlock, gid=1)
    waits = {d.gid: d.wait for d in f.dumps}
    assert waits == {1: "sync.RWMutex.RLock", 2: "sync.RWMutex.Lock (waiting for readers)"}


def test_unlock_hands_the_read_lock_to_blocked_readers_before_another_writer():
    log = []

    def main():
        rw = gosim.RWMutex()
        rw.lock()

        def reader():
            rw.rlock()
            log.append("reader")
            gosim.sleep(1)
            rw.runlock()

        def writer2():
            rw.lock()
            log.append("writer2")
            rw.unlock()

        gosim.go(reader)
        gosim.go(writer2)
        gosim.sleep(1)  # reader blocks in RLock, writer2 in Lock
        rw.unlock()
        gosim.sleep(5)

    # after the unlock the schedule prefers writer2 (G3): it still must wait for the reader
    ok(run_prefer(main, 1, 3, 2))
    assert log == ["reader", "writer2"]


def test_runlock_and_unlock_of_unlocked_rwmutex_are_fatal():
    def m1():
        gosim.RWMutex().runlock()

    def m2():
        gosim.RWMutex().unlock()

    def m3():
        rw = gosim.RWMutex()
        rw.rlock()
        rw.unlock()  # read-locked is not write-locked

    assert fails(run_bytes(m1), UnlockOfUnlockedMutex).detail == "sync: RUnlock of unlocked RWMutex"
    assert fails(run_bytes(m2), UnlockOfUnlockedMutex).detail == "sync: Unlock of unlocked RWMutex"
    fails(run_bytes(m3), UnlockOfUnlockedMutex)


def test_try_lock_and_try_rlock():
    res = []

    def main():
        rw = gosim.RWMutex()
        res.append(rw.try_rlock())
        res.append(rw.try_lock())
        rw.runlock()
        res.append(rw.try_lock())
        res.append(rw.try_rlock())
        rw.unlock()

    ok(run_bytes(main))
    assert res == [True, False, True, False]
