"""The race-checked Map: Go's hashWriting checks exactly as docs/RUNTIME.md#map describes them.

Scenario for the interleavings: main creates the map, starts G2 and G3 and sleeps; the
schedules below are explicit decision lists (1, 1: main keeps running at both ``go``s; then
which of G2/G3 runs at each scheduling point). A write is: scheduling point
(``map.write.enter``), entry check, scheduling point (``map.write.begin``), toggle, scheduling
point (``map.write``), the write, exit check. A read is a scheduling point, then its check.
"""

import subprocess
import sys
import textwrap

from fuzzfarm import gosim
from fuzzfarm.gosim import ConcurrentMapIterationWrite, ConcurrentMapReadWrite, ConcurrentMapWrites
from fuzzfarm.strategies import RandomStrategy, ReplayStrategy

from gosim_helpers import fails, ok, run_bytes


def _two(g2, g3, init=None):
    box = {}

    def main():
        m = box["m"] = gosim.Map(init, name="m")
        gosim.go(g2, m)
        gosim.go(g3, m)
        gosim.sleep(1)

    return main, box


def _run(main, decisions, **kw):
    return gosim.run(main, strategy=ReplayStrategy(decisions, allow_incomplete=True), **kw)


def _write(key):
    def w(m):
        m[key] = 1
    return w


def test_dict_like_operations():
    def main():
        m = gosim.Map({"a": 1})
        m["b"] = 2
        assert m["a"] == 1 and m.get("z", 9) == 9 and m.lookup("b") == (2, True) and m.lookup("z") == (None, False)
        assert "a" in m and len(m) == 2
        del m["a"]
        del m["missing"]  # Go's delete of a missing key is a no-op
        assert m.pop("b") == 2 and m.pop("b", "d") == "d"
        assert m.setdefault("c", 3) == 3 and m.setdefault("c", 4) == 3
        m.update({"d": 4})
        assert sorted(m.items()) == [("c", 3), ("d", 4)]
        assert sorted(m.clone().snapshot().items()) == [("c", 3), ("d", 4)]
        m.clear()
        assert len(m) == 0

    ok(run_bytes(main))


def test_t1_entry_check_a_second_writer_entering_during_a_write_fails():
    main, _ = _two(_write("a"), _write("b"))
    # G2 passes its entry check, toggles, and is preempted inside the write; G3 enters
    f = fails(_run(main, [1, 1, 2, 2, 2, 3, 3]), ConcurrentMapWrites, gid=3)
    assert f.detail == "concurrent map writes" and f.fatal
    assert f.crash_state[0].endswith("w")


def test_t2_xor_two_writers_past_the_entry_check_the_first_writers_exit_check_fails():
    main, _ = _two(_write("a"), _write("b"))
    # G2 checks | G3 checks | G2 toggles (set) | G3 toggles (clear) | G2's exit check sees clear
    f = fails(_run(main, [1, 1, 2, 2, 3, 3, 2, 3, 2]), ConcurrentMapWrites, gid=2)
    assert f.detail == "concurrent map writes"


def test_read_during_a_write_fails():
    main, _ = _two(_write("a"), lambda m: m.get("a"), init={"x": 0})
    f = fails(_run(main, [1, 1, 2, 2, 2, 3, 3]), ConcurrentMapReadWrite, gid=3)
    assert f.detail == "concurrent map read and map write"


def test_contains_during_a_write_fails():
    main, _ = _two(_write("a"), lambda m: "a" in m, init={"x": 0})
    fails(_run(main, [1, 1, 2, 2, 2, 3, 3]), ConcurrentMapReadWrite, gid=3)


def test_iteration_step_during_a_write_fails():
    main, _ = _two(_write("a"), lambda m: list(m.items()), init={"x": 0})
    f = fails(_run(main, [1, 1, 2, 2, 2, 3, 3]), ConcurrentMapIterationWrite, gid=3)
    assert f.detail == "concurrent map iteration and map write"


def test_the_iteration_step_that_ends_the_loop_checks_too():
    main, _ = _two(_write("a"), lambda m: list(m.items()), init={"x": 0})
    # G3 iterates over its only key (stays at the first step), is preempted at the step that
    # ends the loop; G2 starts a write and toggles; G3's final check sees the flag
    fails(_run(main, [1, 1, 3, 3, 2, 2, 2, 3]), ConcurrentMapIterationWrite, gid=3)


def test_operations_on_an_empty_map_do_not_check_as_in_go():
    # Go's mapaccess, mapdelete, mapclear and mapiterinit return before looking at the flag
    # when h.count == 0; here G2 is inside a write of the map's first key (count still 0).
    for op in (lambda m: m.get("a"), lambda m: "a" in m, lambda m: m.lookup("a"), lambda m: list(m.items()),
               lambda m: m.pop("a"), lambda m: m.clear()):
        main, _ = _two(_write("a"), op)
        ok(_run(main, [1, 1, 2, 2, 2, 3]))
    # a write always checks: a second writer on the empty map still fails
    main, _ = _two(_write("a"), _write("b"))
    fails(_run(main, [1, 1, 2, 2, 2, 3, 3]), ConcurrentMapWrites, gid=3)


def test_len_does_no_check():
    main, _ = _two(_write("a"), lambda m: len(m))
    ok(_run(main, [1, 1, 2, 2, 3, 2]))


def test_a_write_that_no_check_lands_in_goes_unseen_best_effort():
    main, box = _two(_write("a"), _write("b"))
    ok(_run(main, [1, 1, 2, 2, 2, 2, 3, 3, 3, 3]))  # fully sequential writes
    assert box["m"].snapshot() == {"a": 1, "b": 1}


def test_writes_under_a_mutex_never_fail():
    for seed in range(100):
        def main():
            m, mu = gosim.Map(), gosim.Mutex()
            wg = gosim.WaitGroup()
            wg.add(3)
            for i in range(3):
                def w(i=i):
                    with mu:
                        m[i] = i
                        list(m.items())
                    wg.done()
                gosim.go(w)
            wg.wait()

        ok(gosim.run(main, strategy=RandomStrategy(seed)))


def test_unsynchronized_writers_fail_under_some_random_schedule():
    failures = 0
    for seed in range(100):
        def main():
            m = gosim.Map()
            for i in range(2):
                gosim.go(m.__setitem__, i, i)
            gosim.sleep(1)

        failures += gosim.run(main, strategy=RandomStrategy(seed)).failure is not None
    assert failures > 0


def test_iteration_order_comes_from_the_schedule():
    orders = []

    def main():
        m = gosim.Map({"a": 1, "b": 2, "c": 3})
        orders.append(list(m))

    for b in (b"\x00", b"\x01", b"\x02"):
        ok(run_bytes(main, b))
    assert orders == [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"]]


def test_iteration_order_does_not_depend_on_pythonhashseed():
    code = textwrap.dedent("""
        from fuzzfarm import gosim
        from fuzzfarm.strategies import BytesStrategy
        out = []
        def main():
            m = gosim.Map()
            for k in ["kube-system", "default", "test-pods", "monitoring", "x", "y"]:
                m[k] = len(k)
            out.append(list(m.items()))
        for b in (b"", b"\\x03"):
            gosim.run(main, strategy=BytesStrategy(b))
        print(out)
    """)
    outs = set()
    for seed in ("0", "1", "12345"):
        env = {"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"}
        outs.add(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                check=True).stdout)
    assert len(outs) == 1


def test_a_key_deleted_during_its_own_goroutines_iteration_is_not_produced():
    got = []

    def main():
        m = gosim.Map({"a": 1, "b": 2, "c": 3})
        for k, v in m.items():
            got.append(k)
            if k == "a":
                del m["b"]

    ok(run_bytes(main))
    assert got == ["a", "c"]
