"""The hard cases (docs/CASES.md HC-16..HC-19): each buggy form is found within a small bound
under a fixed seed and ends in the deadlock the case describes (every goroutine where the
upstream report says); each fixed form stays clean; and the clean check is not blind: a fix
broken on purpose (a lock order half restored, a window narrowed but not closed) fails it
within the same budget.

Bounds: runs to the first failure from seed 0 were measured (HC-16 and HC-17: random 1, pct 2;
HC-18 random 1, pct 1; HC-19 random 1, pct 34); each test allows at least 10. The clean budget is what the default run can afford (~4 s per
case); the slow tier runs 50,000 schedules per case.
"""

from __future__ import annotations

import pytest

from fuzzfarm import examples, gosim
from fuzzfarm.examples import hc16_simple_token_deadlock as HC16
from fuzzfarm.examples import hc17_policy_stop_wait as HC17
from fuzzfarm.examples import hc18_spdy_write_close as HC18
from fuzzfarm.examples import hc19_workqueue_drain_shutdown as HC19
from fuzzfarm.strategies import BytesStrategy, PCTStrategy, RandomStrategy
from fuzzfarm.strategies.recording import RecordingStrategy

CLEAN_RUNS = {"HC-16": 300, "HC-17": 1000,   # per strategy in the default run (~4 s each)
              "HC-18": 300, "HC-19": 1000}
CLEAN_RUNS_SLOW = 25_000                     # per strategy (random + pct = 50,000 runs)
FIND = {"HC-16": (RandomStrategy, 10), "HC-17": (RandomStrategy, 10), "HC-18": (RandomStrategy, 10),
        "HC-19": (RandomStrategy, 10)}
HARD = [HC16, HC17, HC18, HC19]


def first_failure(main, run_kw, strategy_cls, limit):
    for seed in range(limit):
        f = gosim.run(main, strategy=strategy_cls(seed), **run_kw).failure
        if f is not None:
            return seed + 1, f
    return None, None


def clean_check(main, run_kw, runs):
    """The clean verdict's check: ``runs`` random and ``runs`` PCT schedules; the first failure."""
    for strategy_cls in (RandomStrategy, PCTStrategy):
        for seed in range(runs):
            f = gosim.run(main, strategy=strategy_cls(seed), **run_kw).failure
            if f is not None:
                return f
    return None


def _dump(f, name):
    return next(d for d in f.dumps if d.name == name)


def _funcs(d):
    return [fr.func for fr in d.stack]


def test_registered_as_hard_depth_3_examples():
    for mod in HARD:
        assert mod in examples.all_cases() and mod.HARD and mod.DEPTH == 3
        assert examples.load(mod.ID) is mod and mod.KIND == "deadlock"


def test_hc16_buggy_is_the_ttl_keeper_deadlock():
    cls, limit = FIND["HC-16"]
    n, f = first_failure(HC16.buggy, HC16.RUN_KW, cls, limit)
    assert n is not None, f"HC-16: no failure in {limit} {cls.__name__} runs"
    assert f.kind == "deadlock", f.render()
    keeper = _dump(f, "simpleTokenTTLKeeper.run")
    # the keeper is inside its tick handler, waiting for the write lock in deleteTokenFunc
    assert _funcs(keeper)[:2] == ["_TokenSimpleChan._deleter.<locals>.delete_token", "_KeeperChan.run"] \
        or _funcs(keeper)[1] == "_KeeperChan.run", f.render()
    assert "RWMutex.Lock" in keeper.wait, keeper.wait
    # a client holds the read lock and waits to send its TTL reset to the full channel
    senders = [d for d in f.dumps if d.name.startswith("client") and d.wait == "chan send"]
    assert senders and _funcs(senders[0])[0] == "_KeeperChan.reset_simple_token", f.render()
    assert f.now > HC16.SIMPLE_TOKEN_TTL  # only once the idle token has expired


def test_hc17_buggy_is_the_three_way_deadlock():
    cls, limit = FIND["HC-17"]
    n, f = first_failure(HC17.buggy, HC17.RUN_KW, cls, limit)
    assert n is not None, f"HC-17: no failure in {limit} {cls.__name__} runs"
    assert f.kind == "deadlock", f.render()
    a, b, c = (_dump(f, x) for x in ("A.podInformer", "B.deleteNetworkPolicy", "C.handleLocalPodSelector"))
    assert _funcs(a)[0] == "_Controller.handle_local_pod_selector_del_func" and "Mutex.Lock" in a.wait
    assert "_Informer.for_each_handler" in _funcs(a)
    assert _funcs(b)[0] == "_Controller.delete_network_policy_buggy" and "WaitGroup.Wait" in b.wait
    assert _funcs(c)[0] == "_Informer.remove_handler" and "Mutex.Lock" in c.wait


def test_hc18_buggy_is_the_write_close_deadlock():
    cls, limit = FIND["HC-18"]
    n, f = first_failure(HC18.buggy, HC18.RUN_KW, cls, limit)
    assert n is not None, f"HC-18: no failure in {limit} {cls.__name__} runs"
    assert f.kind == "deadlock", f.render()
    m = _dump(f, "M.monitor")
    # the monitor took the closeChan case and waits for writeLock, with the timer stopped
    assert _funcs(m)[0] == "_IdleAwareFramer.monitor" and "Mutex.Lock" in m.wait, f.render()
    # a writer holds writeLock and waits to send its token into the full resetChan
    senders = [d for d in f.dumps if d.name.startswith("W") and d.wait == "chan send"]
    assert len(senders) == 1 and _funcs(senders[0])[0] == "_IdleAwareFramer.write_frame", f.render()


def test_hc19_buggy_is_the_lost_shutdown_broadcast():
    cls, limit = FIND["HC-19"]
    n, f = first_failure(HC19.buggy, HC19.RUN_KW, cls, limit)
    assert n is not None, f"HC-19: no failure in {limit} {cls.__name__} runs"
    assert f.kind == "deadlock", f.render()
    d = _dump(f, "D.ShutDownWithDrain")
    # D waits in waitForProcessing although ShutDown (which ran) cleared drain
    assert _funcs(d)[:2] == ["_Type.wait_for_processing", "_Type.shut_down_with_drain_buggy"], f.render()
    assert "Cond.Wait" in d.wait, d.wait
    assert "WaitGroup.Wait" in _dump(f, "main").wait


@pytest.mark.parametrize("mod", HARD, ids=lambda m: m.ID)
def test_fixed_form_clean(mod):
    f = clean_check(mod.fixed, mod.RUN_KW, CLEAN_RUNS[mod.ID])
    assert f is None, f.render()


@pytest.mark.slow
@pytest.mark.parametrize("mod", HARD, ids=lambda m: m.ID)
def test_fixed_form_clean_in_50000_runs(mod):
    f = clean_check(mod.fixed, mod.RUN_KW, CLEAN_RUNS_SLOW)
    assert f is None, f.render()


@pytest.mark.parametrize("mod", HARD, ids=lambda m: m.ID)
def test_fixed_form_passes_the_buggy_forms_failing_schedules(mod):
    s = RecordingStrategy(PCTStrategy(0) if mod is HC16 else RandomStrategy(3))
    hits = 0
    for _ in range(60):
        if gosim.run(mod.buggy, strategy=s, **mod.RUN_KW).failure is not None:
            hits += 1
            assert gosim.run(mod.fixed, strategy=BytesStrategy(bytes(s.recorded)), **mod.RUN_KW).failure is None
    assert hits > 0


# ---- mutations: the clean check must catch a fix that is broken on purpose -------------------
class _InfoLocksInTheWrongOrder(HC16._TokenSimpleMu):
    """#7492 with ``info`` taking ``simpleTokensMu`` before ``tokensMu``: the tick handler takes
    them in the other order, so the lock order is no longer one."""

    def info(self, token):
        self.simple_tokens_mu.lock()
        self.simple_token_keeper.tokens_mu.lock()
        username, ok = self.simple_tokens.lookup(token)
        if ok:
            self.simple_token_keeper.reset_simple_token(token)
        self.simple_token_keeper.tokens_mu.unlock()
        self.simple_tokens_mu.unlock()
        return username, ok


class _RelocksBeforeWaiting(HC17._Controller):
    """#334 with the window narrowed, not closed: ``np`` is released around ``close(np.stop)``
    only, and taken again before the wait."""

    def delete_network_policy_fixed(self, np):
        np.lock.lock()
        np.deleted = True
        HC17._ovn_nbctl()
        HC17._ovn_nbctl()
        np.lock.unlock()
        np.stop.close()
        np.lock.lock()
        np.stop_wg.wait()
        np.lock.unlock()


def _hc17_with(controller_cls, monkeypatch):
    monkeypatch.setattr(HC17, "_Controller", controller_cls)
    return HC17._scenario(fixed=True)


def test_clean_check_catches_hc16_fix_with_lock_order_broken():
    f = clean_check(HC16._scenario(_InfoLocksInTheWrongOrder), HC16.RUN_KW, CLEAN_RUNS["HC-16"])
    assert f is not None and f.kind == "deadlock"


def test_clean_check_catches_hc17_fix_with_window_narrowed(monkeypatch):
    f = clean_check(_hc17_with(_RelocksBeforeWaiting, monkeypatch), HC17.RUN_KW, CLEAN_RUNS["HC-17"])
    assert f is not None and f.kind == "deadlock"


class _DrainsOnce(HC18._IdleAwareFramer):
    """#50 with the window narrowed, not closed: the drainer takes one token instead of ranging
    over resetChan, so the blocked writer gets through but the next writer can fill it again."""

    def _drain(self, reset_chan):
        reset_chan.recv_ok()


class _ShutDownBroadcastsBeforeClearingDrain(HC19._Type):
    """#119554 half done, in the other order: waitForProcessing rechecks ``drain`` under the
    lock (the buggy helpers otherwise), but ShutDown broadcasts before it clears ``drain``, so
    D can still recheck, wait, and miss the only wake-up."""

    def wait_for_processing(self):
        self.cond.L.lock()
        try:
            if len(self.processing) == 0 or not self.drain:
                return
            self.cond.wait()
        finally:
            self.cond.L.unlock()

    def shut_down_buggy(self):
        self.shutdown()
        self.set_drain(False)


def test_clean_check_catches_hc18_fix_with_window_narrowed(monkeypatch):
    monkeypatch.setattr(HC18, "_IdleAwareFramer", _DrainsOnce)
    f = clean_check(HC18._scenario(fixed=True), HC18.RUN_KW, CLEAN_RUNS["HC-18"])
    assert f is not None and f.kind == "deadlock"


def test_clean_check_catches_hc19_fix_with_broadcast_before_drain_cleared(monkeypatch):
    monkeypatch.setattr(HC19, "_Type", _ShutDownBroadcastsBeforeClearingDrain)
    f = clean_check(HC19._scenario(fixed=False), HC19.RUN_KW, CLEAN_RUNS["HC-19"])
    assert f is not None and f.kind == "deadlock"
