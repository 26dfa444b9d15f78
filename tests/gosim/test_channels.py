"""Channels and select (Go spec: Channel types, Send statements, Receive operator, Close,
Select statements)."""

import pytest

from fuzzfarm import gosim
from fuzzfarm.gosim import (DEFAULT, CloseOfClosedChannel, CloseOfNilChannel, Deadlock,
                            SendOnClosedChannel)

from gosim_helpers import fails, ok, run_bytes


def test_unbuffered_send_blocks_until_a_receiver_arrives():
    log = []

    def main():
        ch = gosim.Chan()

        def receiver():
            gosim.sleep(5)
            log.append(("recv", ch.recv(), gosim.now()))

        gosim.go(receiver)
        ch.send("x")
        log.append(("send returned", gosim.now()))
        gosim.sleep(1)

    ok(run_bytes(main))
    assert sorted(log) == [("recv", "x", 5.0), ("send returned", 5.0)]


def test_unbuffered_receive_blocks_until_a_sender_arrives():
    log = []

    def main():
        ch = gosim.Chan()

        def sender():
            gosim.sleep(3)
            ch.send(42)

        gosim.go(sender)
        log.append((ch.recv(), gosim.now()))

    ok(run_bytes(main))
    assert log == [(42, 3.0)]


def test_buffered_channel_blocks_only_when_full_and_is_fifo():
    log = []

    def main():
        ch = gosim.Chan(2)
        ch.send(1)
        ch.send(2)
        assert len(ch) == 2

        def drain():
            gosim.sleep(1)
            log.append(ch.recv())

        gosim.go(drain)
        ch.send(3)  # full: blocks until drain takes one
        log.append(("third send at", gosim.now()))
        log.extend([ch.recv(), ch.recv()])

    ok(run_bytes(main))
    assert log == [1, ("third send at", 1.0), 2, 3]


def test_close_wakes_every_receiver_with_ok_false():
    got = []

    def main():
        ch = gosim.Chan()
        wg = gosim.WaitGroup()
        wg.add(3)
        for _ in range(3):
            def r():
                got.append(ch.recv_ok())
                wg.done()
            gosim.go(r)
        gosim.sleep(1)  # all three block
        ch.close()
        wg.wait()

    ok(run_bytes(main))
    assert got == [(None, False)] * 3


def test_closed_buffered_channel_is_drained_before_ok_false():
    def main():
        ch = gosim.Chan(2)
        ch.send("a")
        ch.send("b")
        ch.close()
        assert ch.recv_ok() == ("a", True)
        assert ch.recv_ok() == ("b", True)
        assert ch.recv_ok() == (None, False)
        assert ch.recv() is None

    ok(run_bytes(main))


def test_range_over_a_channel_stops_at_close():
    out = []

    def main():
        ch = gosim.Chan()

        def producer():
            for i in range(3):
                ch.send(i)
            ch.close()

        gosim.go(producer)
        out.extend(ch)

    ok(run_bytes(main))
    assert out == [0, 1, 2]


def test_send_on_closed_channel_panics():
    def main():
        ch = gosim.Chan(1)
        ch.close()
        ch.send(1)

    f = fails(run_bytes(main), SendOnClosedChannel, gid=1)
    assert f.detail == "send on closed channel" and not f.fatal


def test_close_wakes_a_blocked_sender_which_panics():
    def main():
        ch = gosim.Chan()
        gosim.go(ch.send, 1)
        gosim.sleep(1)
        ch.close()
        gosim.sleep(1)

    fails(run_bytes(main), SendOnClosedChannel, gid=2)


def test_close_of_closed_channel_panics():
    def main():
        ch = gosim.Chan()
        ch.close()
        ch.close()

    f = fails(run_bytes(main), CloseOfClosedChannel, gid=1)
    assert f.detail == "close of closed channel"


def test_close_of_nil_channel_panics():
    def main():
        gosim.close(None)

    f = fails(run_bytes(main), CloseOfNilChannel, gid=1)
    assert f.detail == "close of nil channel"


def test_nil_channel_blocks_forever():
    def main():
        gosim.go(gosim.send, None, 1)
        gosim.recv_ok(None)

    f = fails(run_bytes(main), Deadlock, gid=1)
    assert {d.gid: d.wait for d in f.dumps} == {1: "chan receive (nil chan)", 2: "chan send (nil chan)"}


def test_negative_capacity_panics():
    def main():
        gosim.Chan(-1)

    f = fails(run_bytes(main), gosim.GoroutinePanic)
    assert "size out of range" in f.detail


# ---------------------------------------------------------------------------------- select
def _two_ready():
    got = []

    def main():
        a, b = gosim.Chan(1), gosim.Chan(1)
        a.send("a")
        b.send("b")
        got.append(gosim.select(gosim.recv_case(a), gosim.recv_case(b)))

    return main, got


def test_which_ready_select_case_wins_is_a_schedule_decision():
    main, got = _two_ready()
    rep = ok(run_bytes(main, b"\x00"))
    assert got == [(0, "a", True)] and rep.decisions == [-1]
    got.clear()
    rep = ok(run_bytes(main, b"\x01"))
    assert got == [(1, "b", True)] and rep.decisions == [-2]


def test_select_default_when_nothing_is_ready():
    got = []

    def main():
        ch = gosim.Chan()
        got.append(gosim.select(gosim.recv_case(ch), default=True))
        ch2 = gosim.Chan(1)
        got.append(gosim.select(gosim.send_case(ch2, 1), default=True))

    ok(run_bytes(main))
    assert got == [(DEFAULT, None, True), (0, None, True)]


def test_blocking_select_is_woken_by_a_later_send_and_leaves_other_queues():
    got = []

    def main():
        a, b = gosim.Chan(), gosim.Chan()

        def sender():
            gosim.sleep(2)
            b.send("via b")

        gosim.go(sender)
        got.append(gosim.select(gosim.recv_case(a), gosim.recv_case(b)))
        got.append((len(a.recvq), len(b.recvq)))  # the waiter left every queue

    ok(run_bytes(main))
    assert got == [(1, "via b", True), (0, 0)]


def test_select_send_case_completes_with_a_receiver():
    got = []

    def main():
        ch = gosim.Chan()
        gosim.go(lambda: got.append(ch.recv()))
        gosim.sleep(1)
        got.append(gosim.select(gosim.send_case(ch, "v"), gosim.recv_case(None)))

    ok(run_bytes(main))
    assert got == ["v", (0, None, True)] or got == [(0, None, True), "v"]


def test_select_recv_on_closed_channel_is_ready_with_ok_false():
    def main():
        ch = gosim.Chan()
        ch.close()
        assert gosim.select(gosim.recv_case(ch)) == (0, None, False)

    ok(run_bytes(main))


def test_select_send_case_on_a_closed_channel_panics_when_chosen():
    def main():
        ch = gosim.Chan()
        ch.close()
        gosim.select(gosim.send_case(ch, 1))

    fails(run_bytes(main), SendOnClosedChannel, gid=1)


def test_select_with_nil_channels_only_and_no_default_blocks_forever():
    def main():
        gosim.select(gosim.recv_case(None), gosim.send_case(None, 1))

    fails(run_bytes(main), Deadlock, gid=1)


def test_select_with_no_cases_blocks_forever():
    def main():
        gosim.select()

    f = fails(run_bytes(main), Deadlock, gid=1)
    assert f.dumps[0].wait == "select (no cases)"


def test_one_select_is_served_once_even_if_two_of_its_channels_get_senders():
    got = []

    def main():
        a, b = gosim.Chan(), gosim.Chan()
        gosim.go(a.send, 1)
        gosim.go(b.send, 2)
        got.append(gosim.select(gosim.recv_case(a), gosim.recv_case(b))[:2])
        got.append(gosim.select(gosim.recv_case(a), gosim.recv_case(b))[:2])

    for data in (b"", b"\x01\x02\x00", b"\x02\x01\x00\x00", b"\x00\x01\x02\x01\x00"):
        got.clear()
        ok(run_bytes(main, data))
        assert sorted(v for _, v in got) == [1, 2]


@pytest.mark.parametrize("cap", [0, 1])
def test_sender_blocked_in_select_is_handed_to_a_receiver(cap):
    got = []

    def main():
        ch = gosim.Chan(cap)
        for _ in range(cap):
            ch.send("buffered")

        def s():
            got.append(gosim.select(gosim.send_case(ch, "from select")))

        gosim.go(s)
        gosim.sleep(1)
        got.extend(ch.recv() for _ in range(cap + 1))
        gosim.sleep(1)

    ok(run_bytes(main))
    assert got[-1 - cap:] == ["buffered"] * cap + ["from select"] or "from select" in got
