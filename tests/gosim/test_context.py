"""context (docs/RUNTIME.md#context): with_cancel returns (ctx, cancel); cancel is idempotent, closes done and
cancels every child; with_timeout is with_cancel plus a timer at now+d; err() is nil until
done, then Canceled or DeadlineExceeded; a child of a cancelled parent is done from birth."""

from fuzzfarm import gosim
from fuzzfarm.gosim import CANCELED, DEADLINE_EXCEEDED

from gosim_helpers import ok, run_bytes


def _in_run(fn):
    out = {}
    ok(run_bytes(lambda: out.setdefault("v", fn())))
    return out["v"]


def test_background_is_never_done():
    def f():
        bg = gosim.background()
        return bg.done(), bg.err(), bg.deadline(), gosim.todo() is bg

    assert _in_run(f) == (None, None, None, True)


def test_cancel_closes_done_sets_canceled_and_is_idempotent():
    def f():
        ctx, cancel = gosim.with_cancel(gosim.background())
        before = (ctx.err(), len(ctx.done().recvq))
        cancel()
        cancel()
        return before, ctx.err(), ctx.done().recv_ok()

    assert _in_run(f) == ((None, 0), CANCELED, (None, False))


def test_cancel_wakes_a_goroutine_waiting_on_done():
    got = []

    def main():
        ctx, cancel = gosim.with_cancel(gosim.background())
        gosim.go(lambda: got.append((ctx.done().recv_ok(), ctx.err(), gosim.now())))
        gosim.sleep(4)
        cancel()
        gosim.sleep(1)

    ok(run_bytes(main))
    assert got == [((None, False), CANCELED, 4.0)]


def test_cancel_propagates_to_children_and_grandchildren_but_not_up():
    def f():
        root, cancel_root = gosim.with_cancel(gosim.background())
        mid, cancel_mid = gosim.with_cancel(root)
        leaf, _ = gosim.with_cancel(mid)
        sibling, _ = gosim.with_cancel(root)
        cancel_mid()
        first = (root.err(), mid.err(), leaf.err(), sibling.err())
        cancel_root()
        return first, sibling.err()

    assert _in_run(f) == ((None, CANCELED, CANCELED, None), CANCELED)


def test_cancel_propagates_through_value_contexts():
    def f():
        root, cancel = gosim.with_cancel(gosim.background())
        v = gosim.with_value(root, "k", "v")
        child, _ = gosim.with_cancel(v)
        cancel()
        return child.err(), gosim.with_value(child, "x", 1).value("k"), v.err()

    assert _in_run(f) == (CANCELED, "v", CANCELED)


def test_a_child_of_a_cancelled_parent_is_done_from_birth():
    def f():
        parent, cancel = gosim.with_cancel(gosim.background())
        cancel()
        child, _ = gosim.with_cancel(parent)
        tchild, _ = gosim.with_timeout(parent, 10)
        return child.err(), child.done().recv_ok(), tchild.err()

    assert _in_run(f) == (CANCELED, (None, False), CANCELED)


def test_with_timeout_fires_at_exactly_now_plus_d():
    got = []

    def main():
        gosim.sleep(0.1)
        ctx, cancel = gosim.with_timeout(gosim.background(), 0.2)
        got.append(ctx.deadline())
        ctx.done().recv()
        got.append((gosim.now(), ctx.err()))
        cancel()  # after expiry: no effect, err stays DeadlineExceeded
        got.append(ctx.err())

    ok(run_bytes(main))
    assert got == [0.1 + 0.2, (0.1 + 0.2, DEADLINE_EXCEEDED), DEADLINE_EXCEEDED]


def test_cancel_before_the_deadline_wins_and_removes_the_timer():
    got = []

    def main():
        ctx, cancel = gosim.with_timeout(gosim.background(), 5)
        gosim.sleep(1)
        cancel()
        got.append((ctx.err(), len(gosim.current_runtime().timers)))

    ok(run_bytes(main))
    assert got == [(CANCELED, 0)]


def test_parent_deadline_expiry_cancels_the_child_with_deadline_exceeded():
    got = []

    def main():
        parent, _ = gosim.with_timeout(gosim.background(), 2)
        child, _ = gosim.with_timeout(parent, 10)  # the parent's earlier deadline wins
        got.append(child.deadline())
        child.done().recv()
        got.append((gosim.now(), child.err()))

    ok(run_bytes(main))
    assert got == [2.0, (2.0, DEADLINE_EXCEEDED)]


def test_a_deadline_in_the_past_is_exceeded_at_birth():
    def f():
        gosim.sleep(3)
        ctx, _ = gosim.with_deadline(gosim.background(), 1)
        return ctx.err()

    assert _in_run(f) is DEADLINE_EXCEEDED


def test_an_early_timer_decision_can_expire_a_context_before_a_runnable_goroutine_runs():
    got = []

    def main():
        ctx, _ = gosim.with_timeout(gosim.background(), 30)
        gosim.gosched()  # options: [G1, timer]: byte 1 fires the deadline now
        got.append((ctx.err(), gosim.now()))

    ok(run_bytes(main, b"\x01"))
    assert got == [(DEADLINE_EXCEEDED, 30.0)]
    got.clear()
    ok(run_bytes(main, b"\x00"))
    assert got == [(None, 0.0)]
