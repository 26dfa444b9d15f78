"""A crash state whose frames are sides, not a call chain: a lock cycle's goroutines (both in
one Go function ``Transfer``, as the AB-BA transfer bug is) and a race's two accesses. Every view
shows them as sides (``lock cycle: A / B``, ``race between A / B``): ``A < A`` under "innermost
first" read as recursion. And a race's Go crash state is a set for the fix verdict: the same Go
race under other Python names (the fixed variant's copy of a function) is the bug, not another
failure. Plain gosim programs with Go declarations (``gosim.go_func``), no Go toolchain."""

from __future__ import annotations

from rich.console import Console

from fuzzfarm import gosim, views
from fuzzfarm.cli import tables as T
from fuzzfarm.collector import build_artifact
from fuzzfarm.collector import verdict as V
from fuzzfarm.collector.grouping import root_cause
from fuzzfarm.harness.signature import classify
from fuzzfarm.strategies import BytesStrategy

TRANSFER = "Transfer (transfer_buggy.go:10)"


@gosim.go_func("Transfer", "transfer_buggy.go:8")
def transfer(src, dst, both, wg):
    src.lock()  # :9
    both.done()
    both.wait()
    dst.lock()  # :10
    dst.unlock()
    src.unlock()
    wg.done()


@gosim.not_ported("scenario driver: the Go test's body")
def cycle_main():
    a, b = gosim.Mutex("a"), gosim.Mutex("b")
    wg, both = gosim.WaitGroup("wg"), gosim.WaitGroup("both")
    wg.add(2)
    both.add(2)
    gosim.go(transfer, a, b, both, wg, name="ab")
    gosim.go(transfer, b, a, both, wg, name="ba")
    wg.wait()


def outcome_of(f) -> dict:
    """The fields of a runone outcome the views read, from a run's failure."""
    return classify({"failed": True, "harness": "h", "variant": "buggy", "kind": f.kind, "exc_class": f.exc_class,
                     "message": f.detail, "crash_state": f.crash_state, "go_crash_state": f.go_crash_state,
                     "crash_state_shape": f.crash_state_shape, "dump": f.render()})


def render(renderable) -> str:
    c = Console(width=80, color_system=None, force_terminal=False)
    with c.capture() as cap:
        c.print(renderable, soft_wrap=False)
    return cap.get()


def test_a_lock_cycle_in_one_go_function_reads_as_two_sides_not_recursion():
    f = gosim.run(cycle_main, strategy=BytesStrategy(b"")).failure
    assert isinstance(f, gosim.Deadlock) and f.cycle == ["transfer", "transfer"], f
    assert f.crash_state_shape == "lock cycle" and f.go_crash_state == [TRANSFER, TRANSFER]
    b = {**outcome_of(f), "id": "b1", "count": 1, "state": "done"}
    text = views.crash_state_text(b)
    assert text == f"lock cycle: {TRANSFER} [transfer] / {TRANSFER} [transfer]" and " < " not in text
    assert views.crash_where(b) == f"in the lock cycle {TRANSFER} [transfer] / {TRANSFER} [transfer]"
    assert V.where(b) == f"deadlock between {TRANSFER} / {TRANSFER}"
    shown = render(T.bucket_table([b], "buckets", wide=False))
    assert f"b1 {text}" in " ".join(shown.split()) and T.STATE_HEAD in shown, shown  # wrapped at 80 columns
    key, name = root_cause(b)
    assert key == "h|buggy|op|deadlock|transfer" and name == "h/buggy: deadlock between Transfer / Transfer", name
    files = build_artifact(bucket={"id": "b1"}, original=b"", minimized=b"", outcome=b, harness_hash="h", version="v")
    failure = files["failure.txt"].decode()
    assert (f"crash state: the goroutines of the lock cycle (Go, [Python]):\n  {TRANSFER}  [transfer]\n"
            f"  {TRANSFER}  [transfer]\n") in failure, failure


def test_a_stack_still_reads_innermost_first():
    @gosim.go_func("(*Tracker).Stop", "tracker.go:16")
    def stop(cancel):
        cancel()  # :21

    @gosim.not_ported("scenario driver")
    def main():
        stop(None)

    f = gosim.run(main, strategy=BytesStrategy(b"")).failure
    b = outcome_of(f)
    assert f.crash_state_shape == "stack" and views.crash_state_text(b).startswith("(*Tracker).Stop (tracker.go:21) [")
    assert " < " in views.crash_state_text(b) and V.where(b).startswith("goroutine panic (TypeError) at (*Tracker).Stop")


class Pool:
    done = gosim.Shared(0)


def race_program(writer_first: bool):
    """One Go race (``(*Pool).record`` writes, ``(*Pool).Done`` reads) under two sets of Python
    names: the fixed variant's copy of ``record`` sorts after ``done`` (``z_record``), the buggy
    one before it (``a_record``)."""

    @gosim.go_func("(*Pool).record", "pool.go:6")
    def a_record(p):
        p.done = 1  # :7

    @gosim.go_func("(*Pool).record", "pool.go:6")
    def z_record(p):
        p.done = 1  # :7

    @gosim.go_func("(*Pool).Done", "pool.go:10")
    def m_done(p):
        return p.done  # :11

    @gosim.not_ported("scenario driver")
    def main():
        p = Pool()
        gosim.go(a_record if writer_first else z_record, p)
        m_done(p)
        gosim.sleep(1)

    return main


def test_one_go_race_under_other_python_names_is_the_same_bug_for_the_fix_verdict():
    bug, other = (gosim.run(race_program(w), strategy=BytesStrategy(b"")).failure for w in (True, False))
    assert bug.kind == other.kind == "data race"
    assert [s.rsplit(".", 1)[1] for s in bug.crash_state + other.crash_state] == ["a_record", "m_done", "m_done",
                                                                                   "z_record"]
    go_bug = ["(*Pool).record (pool.go:7)", "(*Pool).Done (pool.go:11)"]
    assert bug.go_crash_state == go_bug and other.go_crash_state == go_bug[::-1]  # each as its crash_state
    b, o = outcome_of(bug), outcome_of(other)
    assert b["signature"] != o["signature"]  # buckets stay on Python names
    assert V.run_verdict(b["signature"], o, V.go_failure(b)) == V.NO
    assert V.where(o) == "data race between (*Pool).Done (pool.go:11) / (*Pool).record (pool.go:7)"
    # failure.txt's fix block names the fixed run's race by its two sides too
    from fuzzfarm.collector.artifact import fix_text
    text = fix_text({"fix_evidence": {"summary": "NO", "variant": "fixed", "outcome": V.outcome_summary(o)}})
    assert "  between:    (*Pool).Done (pool.go:11) / (*Pool).record (pool.go:7)\n" in text, text
