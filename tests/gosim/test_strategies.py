"""Strategies: bytes (fuzz input; fixed default once exhausted), random (seeded), PCT
(Burckhardt et al. 2010), replay; and the recording wrapper."""

import pytest

from fuzzfarm import gosim
from fuzzfarm.strategies import (BytesStrategy, PCTStrategy, RandomStrategy, ReplayStrategy, make,
                                 next_index, stay_index)
from fuzzfarm.strategies.bytes_strategy import YIELD_PATIENCE
from fuzzfarm.strategies.recording import RecordingStrategy

from gosim_helpers import ok


class G:
    def __init__(self, gid):
        self.gid = gid


GS = [G(1), G(2), G(3)]


def test_bytes_maps_each_byte_modulo_the_options():
    s = BytesStrategy(bytes([0, 1, 2, 3, 4, 7, 5]))
    assert [s.pick(GS, GS[0], False) for _ in range(4)] == [0, 1, 2, 0]
    assert s.pick(GS, GS[0], True) == 0  # 4 % 4: options are G1, G2, G3, timer
    assert s.pick(GS, GS[0], True) == 3  # 7 % 4: fire the timer
    assert s.pick_index(2, "select") == 1
    assert s.consumed == 7


def test_bytes_default_once_exhausted_stays_and_never_fires_timers():
    s = BytesStrategy(b"\x02", log=True)
    assert s.pick(GS, GS[0], True) == 2
    assert [s.pick(GS, GS[1], True) for _ in range(5)] == [1] * 5
    assert s.pick(GS, None, True) == 0  # current blocked: lowest id
    assert s.pick_index(3, "range") == 0
    assert s.log == [(0, 4, 0, 2)]
    assert s.preemption_edits() == [(0, 0)]


def test_bytes_window_start_end():
    s = BytesStrategy(b"\x09\x01\x02\x09", start=1, end=3)
    assert [s.pick(GS, GS[0], False) for _ in range(3)] == [1, 2, 0]
    assert s.consumed == 3


def test_bytes_yield_default_hands_over_after_patience():
    s = BytesStrategy(b"")
    picks = [s.pick_yield(GS, GS[1], False) for _ in range(YIELD_PATIENCE + 1)]
    assert picks == [1] * YIELD_PATIENCE + [2]
    assert s.pick_yield(GS, GS[2], False) == 2  # another goroutine: patience restarts
    assert next_index(GS, GS[2]) == 0 and stay_index(GS, GS[2]) == 2


def test_bytes_every_input_is_a_valid_schedule():
    def main():
        ch = gosim.Chan()
        gosim.go(lambda: ch.send(1))
        gosim.go(lambda: gosim.select(gosim.recv_case(ch), gosim.recv_case(gosim.after(1))))
        gosim.sleep(2)

    for n in range(200):
        data = bytes((n * 37 + i * 11) % 256 for i in range(n % 13))
        gosim.run(main, strategy=BytesStrategy(data))  # never raises


def _racy():
    def main():
        m = gosim.Map()
        wg = gosim.WaitGroup()
        wg.add(3)
        for i in range(3):
            def w(i=i):
                gosim.gosched()
                m[i] = i
                wg.done()
            gosim.go(w)
        wg.wait()
    return main


@pytest.mark.parametrize("make_strategy", [RandomStrategy, PCTStrategy])
def test_seeded_strategies_are_deterministic_across_runs_and_objects(make_strategy):
    def series(seed):
        s = make_strategy(seed)
        return [gosim.run(_racy(), strategy=s).to_json() for _ in range(20)]

    assert series(5) == series(5)
    assert series(5) != series(6)


def test_pct_depth_1_is_a_fixed_priority_schedule():
    def main():
        m, wg = gosim.Mutex(), gosim.WaitGroup()
        wg.add(3)
        for _ in range(3):
            gosim.go(lambda: (m.lock(), m.unlock(), wg.done()))
        wg.wait()

    for seed in range(20):
        s = PCTStrategy(seed, depth=1, timer_p=0)
        seen = {}
        orig = s.pick

        def pick(runnable, current, timer):
            i = orig(runnable, current, timer)
            for gid, p in s.prio.items():
                assert seen.setdefault(gid, p) == p  # priorities never change
            assert s.prio[runnable[i].gid] == max(s.prio[g.gid] for g in runnable)
            return i

        s.pick = pick
        ok(gosim.run(main, strategy=s))
        assert s.change_points == {}


def test_pct_priorities_and_change_points_follow_the_paper():
    s = PCTStrategy(3, depth=4, k_hint=10)

    class RT:
        cur = None

    s.begin(RT())
    assert len(s.change_points) == 3
    assert sorted(s.change_points.values()) == [0, 1, 2]
    assert all(1 <= p <= 10 for p in s.change_points)
    s.pick(GS, GS[0], False)
    assert all(p > 4 for p in s.prio.values())
    with pytest.raises(ValueError):
        PCTStrategy(1, depth=0)


def test_pct_learns_k_from_the_longest_run():
    s = PCTStrategy(1, k_hint=2)
    for _ in range(3):
        gosim.run(_racy(), strategy=s)
    assert s.k > 2


def test_pct_yield_drops_the_yielder_below_everyone():
    flag = []

    def main():
        gosim.go(lambda: flag.append(1))
        while not flag:
            gosim.gosched()

    for seed in range(20):
        rep = ok(gosim.run(main, strategy=PCTStrategy(seed), max_steps=200))
        assert rep.steps < 20


def test_pct_finds_a_depth_2_bug():
    """Publish before init: G3 must run after G2 set ``ready`` and before G2 set ``data``."""
    def main():
        box = {"ready": False, "data": 0}

        def g2():
            box["ready"] = True
            gosim.gosched()
            box["data"] = 42

        def g3():
            gosim.gosched()
            if box["ready"]:
                assert box["data"] == 42, "saw ready before data"

        gosim.go(g2)
        gosim.go(g3)
        gosim.sleep(1)

    s = PCTStrategy(0, depth=2, timer_p=0)
    found = next((i for i in range(200) if gosim.run(main, strategy=s).failure), None)
    assert found is not None and found < 200


def test_random_timer_weight_zero_never_fires_early():
    def main():
        gosim.go(lambda: None)
        t = gosim.after(1)
        for _ in range(20):
            gosim.gosched()
        assert len(t) == 0

    for seed in range(20):
        rep = ok(gosim.run(main, strategy=RandomStrategy(seed, timer_weight=0)))
        assert 0 not in rep.decisions[:20]


def test_make_builds_by_name():
    assert isinstance(make("bytes", data=b"x"), BytesStrategy)
    assert isinstance(make("random", seed=1), RandomStrategy)
    assert isinstance(make("pct", seed=1), PCTStrategy)
    with pytest.raises(ValueError, match="unknown strategy"):
        make("dfs")


def test_recording_wrapper_records_one_byte_per_decision():
    rec = RecordingStrategy(RandomStrategy(9))
    rep = gosim.run(_racy(), strategy=rec)
    assert len(rec.recorded) == len(rep.decisions) == rec.consumed
    again = gosim.run(_racy(), strategy=BytesStrategy(bytes(rec.recorded)))
    assert again.decisions == rep.decisions


def test_replay_with_allow_incomplete_continues_with_the_bytes_default():
    first = gosim.run(_racy(), strategy=RandomStrategy(1))
    half = first.decisions[: len(first.decisions) // 2]
    a = gosim.run(_racy(), strategy=ReplayStrategy(half, allow_incomplete=True))
    assert a.decisions[: len(half)] == half
