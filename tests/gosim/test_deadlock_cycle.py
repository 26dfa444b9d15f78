"""A deadlock's crash state comes from the goroutines in its lock cycle: one cycle, one
bucket, wherever main waits."""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.harness.signature import signature
from fuzzfarm.strategies import BytesStrategy


def _transfer_a_to_b(a, b, both, wg):
    a.lock()
    both.done()
    both.wait()  # both hold their first lock: any schedule now deadlocks
    b.lock()  # never: the other transfer holds b and waits for a
    b.unlock()
    a.unlock()
    wg.done()


def _transfer_b_to_a(a, b, both, wg):
    b.lock()
    both.done()
    both.wait()
    a.lock()
    a.unlock()
    b.unlock()
    wg.done()


def _cycle_program(main_waits: str, rw: bool = False):
    """The same AB-BA lock cycle between two goroutines; main waits in one of three places."""

    def main():
        a = gosim.RWMutex("a") if rw else gosim.Mutex("a")
        b = gosim.Mutex("b")
        wg = gosim.WaitGroup("wg")
        both = gosim.WaitGroup("both")
        wg.add(2)
        both.add(2)
        gosim.go(_transfer_a_to_b, a, b, both, wg, name="ab")
        gosim.go(_transfer_b_to_a, a, b, both, wg, name="ba")
        {"waitgroup": _wait_group, "channel": _wait_channel, "self-lock": _lock_twice}[main_waits](wg)

    return main


def _wait_group(wg):
    wg.wait()


def _wait_channel(wg):
    gosim.Chan(0, "never").recv()


def _lock_twice(wg):
    gosim.sleep(1.0)
    other = gosim.Mutex("c")
    other.lock()
    other.lock()  # main deadlocks on its own: not part of the cycle


def _run(main_waits, rw=False):
    rep = gosim.run(_cycle_program(main_waits, rw), strategy=BytesStrategy(b""))
    assert isinstance(rep.failure, gosim.Deadlock), rep.failure
    return rep.failure


def test_one_lock_cycle_is_one_signature_wherever_main_waits():
    sigs = set()
    for where in ("waitgroup", "channel", "self-lock"):
        f = _run(where)
        assert f.cycle == ["_transfer_a_to_b", "_transfer_b_to_a"], (where, f.cycle)
        assert f.crash_state == f.cycle
        assert f.detail == "all goroutines are asleep - deadlock!"  # Go's text, exactly
        assert "lock cycle: " in f.render() and "waits for b held by G" in f.cycle_text
        assert f.dumps[0].name in ("ab", "ba")  # the failing goroutine is a cycle member
        sigs.add(signature(f.kind, f.exc_class, f.crash_state))
    assert len(sigs) == 1


def test_rwmutex_writer_in_the_cycle():
    f = _run("waitgroup", rw=True)
    assert f.cycle == ["_transfer_a_to_b", "_transfer_b_to_a"]


def test_deadlock_without_lock_cycle_keeps_main_state():
    def main():
        gosim.Chan(0, "never").recv()

    rep = gosim.run(main, strategy=BytesStrategy(b""))
    assert isinstance(rep.failure, gosim.Deadlock)
    assert rep.failure.cycle is None
    assert rep.failure.crash_state[0].endswith("main")
