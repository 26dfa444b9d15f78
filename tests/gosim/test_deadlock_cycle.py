"""A deadlock's crash state comes from the goroutines in its lock cycle: one cycle, one
bucket, wherever main waits."""

from __future__ import annotations

import re

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


def _two_ports_of_one_cycle(generated: bool):
    """One Go lock-order deadlock (hc03's pair) ported twice: by hand, with Python names that
    sort opposite to the Go names (``_a_*`` for removeHandler), and as `fuzzfarm port` names it
    (path-qualified, ``(*T).M``). Go's report names neither goroutine (its timeout dump lists
    both); the crash state must not depend on the port's Python names."""
    pkg = "example.com/hc03." if generated else ""
    remove = f"{pkg}(*WatchFactory).removeHandler" if generated else "WatchFactory.removeHandler"
    handle = f"{pkg}(*Controller).handleLocalPodSelectorDelFuncOld" if generated else "Controller.handleLocalPodSelectorDelFuncOld"

    @gosim.go_func(remove, "factory.go:61")
    def _a_remove_handler(inf, np, both, wg):  # B: np's lock, then the informer's
        np.lock()
        both.done()
        both.wait()
        inf.lock()
        wg.done()

    @gosim.go_func(handle, "policy_old.go:56")
    def _b_on_pod_delete(inf, np, both, wg):  # A: the informer's lock, then np's
        inf.lock()
        both.done()
        both.wait()
        np.lock()
        wg.done()

    def main():
        inf, np = gosim.Mutex("informer"), gosim.Mutex("np")
        wg, both = gosim.WaitGroup("wg"), gosim.WaitGroup("both")
        wg.add(2)
        both.add(2)
        gosim.go(_b_on_pod_delete, inf, np, both, wg, name="A")
        gosim.go(_a_remove_handler, inf, np, both, wg, name="B")
        wg.wait()
    return main


def test_the_cycle_is_ordered_by_go_names_so_two_ports_of_one_go_agree():
    from fuzzfarm.strategies import RandomStrategy
    states = set()
    for generated in (False, True):
        for seed in range(6):  # either member may block last
            f = gosim.run(_two_ports_of_one_cycle(generated), strategy=RandomStrategy(seed=seed)).failure
            assert isinstance(f, gosim.Deadlock), f
            assert [c.rsplit(".", 1)[-1] for c in f.cycle] == ["_b_on_pod_delete", "_a_remove_handler"], f.cycle  # by Go name, not Python's
            states.add(tuple(re.sub(r"^example\.com/hc03\.|\(\*(\w+)\)", r"\1", s) for s in f.go_crash_state))
    assert states == {("Controller.handleLocalPodSelectorDelFuncOld (policy_old.go:56)",
                       "WatchFactory.removeHandler (factory.go:61)")}, states
