"""gosim twins of tests/conformance/go/race_cases.go: does the race detector report?

``x = gosim.Var(...)`` stands for Go's captured ``x``; ``_ = x`` is ``x.load()``.
"""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.gosim import atomic

from conform import DEADLOCK, RACE, case, ok

MS = 0.001


def _wg(n: int) -> gosim.WaitGroup:
    wg = gosim.WaitGroup()
    wg.add(n)
    return wg


@case(RACE, mode="race")
def len_map_races_write():
    m = gosim.Map()
    wg = _wg(1)

    def w():
        m[1] = 1
        wg.done()
    gosim.go(w)
    len(m)
    wg.wait()


@case(ok("1"), mode="race")
def len_map_after_join():
    m = gosim.Map()
    wg = _wg(1)

    def w():
        m[1] = 1
        wg.done()
    gosim.go(w)
    wg.wait()
    return str(len(m))


@case(RACE, DEADLOCK, mode="race")
def cond_signal_without_l():
    mu = gosim.Mutex()
    c = gosim.Cond(mu)
    x = gosim.Var("x", 0)
    mu.lock()

    def signaller():
        x.store(1)
        gosim.sleep(5 * MS)
        c.signal()
    gosim.go(signaller)
    c.wait()
    v = x.load()
    mu.unlock()
    return str(v)


@case(ok("1"), mode="race")
def cond_signal_under_l():
    mu = gosim.Mutex()
    c = gosim.Cond(mu)
    x = gosim.Var("x", 0)
    mu.lock()

    def signaller():
        mu.lock()
        x.store(1)
        c.signal()
        mu.unlock()
    gosim.go(signaller)
    c.wait()
    v = x.load()
    mu.unlock()
    return str(v)


@case(RACE, mode="race")
def buffered_send_recv_send():
    ch = gosim.Chan(1)
    x = gosim.Var("x", 0)
    wg = _wg(2)

    def first():
        x.store(1)
        ch.send(1)
        wg.done()

    def second():
        ch.send(2)
        x.load()
        wg.done()
    gosim.go(first)
    gosim.go(second)
    ch.recv()
    ch.recv()
    wg.wait()


def _two_sends(ch):
    x = gosim.Var("x", 0)
    wg = _wg(2)

    def first():
        x.store(1)
        ch.send(None)
        wg.done()

    def second():
        gosim.sleep(10 * MS)
        ch.send(None)
        x.load()
        wg.done()
    gosim.go(first)
    gosim.go(second)
    wg.wait()


@case(ok(), RACE, mode="race")
def zero_size_chan_two_sends():
    _two_sends(gosim.Chan(2, zero_size=True))


@case(RACE, mode="race")
def int_chan_two_sends():
    _two_sends(gosim.Chan(2))


# ok: main's receive before the close (a slow closer). A close before the send is a race
# too: chansend reads the channel before it checks closed.
@case(RACE, ok(), mode="race")
def zero_size_close_overwrites_sends():
    ch = gosim.Chan(1, zero_size=True)
    x = gosim.Var("x", 0)

    def sender():
        x.store(1)
        ch.send(None)

    def closer():
        gosim.sleep(10 * MS)
        ch.close()
    gosim.go(sender)
    gosim.go(closer)
    gosim.sleep(20 * MS)
    ch.recv()
    x.load()


@case(RACE, mode="race")
def send_races_close():
    ch = gosim.Chan(1)
    wg = _wg(1)

    def sender():
        ch.send(1)
        wg.done()
    gosim.go(sender)
    gosim.sleep(10 * MS)
    ch.close()
    wg.wait()


@case(ok("1"), mode="race")
def close_before_recv_orders():
    ch = gosim.Chan()
    x = gosim.Var("x", 0)

    def closer():
        x.store(1)
        ch.close()
    gosim.go(closer)
    ch.recv()
    return str(x.load())


@case(ok("1"), mode="race")
def buffered_send_before_recv():
    ch = gosim.Chan(1)
    x = gosim.Var("x", 0)

    def sender():
        x.store(1)
        ch.send(1)
    gosim.go(sender)
    ch.recv()
    return str(x.load())


@case(ok(), mode="race")
def kth_recv_before_k_plus_cth_send():
    ch = gosim.Chan(1)
    x = gosim.Var("x", 0)
    done = gosim.Chan()
    ch.send(0)

    def receiver():
        x.store(1)
        ch.recv()
        ch.recv()
        done.send(True)
    gosim.go(receiver)
    ch.send(1)
    x.load()
    done.recv()


@case(ok(), mode="race")
def unbuffered_recv_before_send_completes():
    ch = gosim.Chan()
    x = gosim.Var("x", 0)
    done = gosim.Chan()

    def receiver():
        x.store(1)
        ch.recv()
        done.send(True)
    gosim.go(receiver)
    ch.send(1)
    x.load()
    done.recv()


@case(ok("2"), mode="race")
def mutex_orders():
    mu = gosim.Mutex()
    n = gosim.Var("n", 0)
    wg = _wg(2)

    def inc():
        mu.lock()
        n.store(n.load() + 1)
        mu.unlock()
        wg.done()
    for _ in range(2):
        gosim.go(inc)
    wg.wait()
    return str(n.load())


@case(RACE, mode="race")
def mutex_missing():
    n = gosim.Var("n", 0)
    wg = _wg(2)

    def inc():
        n.store(n.load() + 1)
        wg.done()
    for _ in range(2):
        gosim.go(inc)
    wg.wait()


@case(ok("1"), mode="race")
def wait_group_orders():
    x = gosim.Var("x", 0)
    wg = _wg(1)

    def w():
        x.store(1)
        wg.done()
    gosim.go(w)
    wg.wait()
    return str(x.load())


@case(ok("seen"), ok("unseen"), mode="race")
def atomic_store_load_orders():
    flag = atomic.Int32()
    x = gosim.Var("x", 0)
    wg = _wg(1)

    def w():
        x.store(1)
        flag.store(1)
        wg.done()
    gosim.go(w)
    if flag.load() == 1:
        x.load()
        res = "seen"
    else:
        res = "unseen"
    wg.wait()
    return res


@case(RACE, mode="race")
def r_lock_orders_no_readers():
    rw = gosim.RWMutex()
    n = gosim.Var("n", 0)
    wg = _wg(2)

    def inc():
        rw.rlock()
        n.store(n.load() + 1)
        rw.runlock()
        wg.done()
    for _ in range(2):
        gosim.go(inc)
    wg.wait()


@case(ok("1"), mode="race")
def rw_mutex_writer_orders():
    rw = gosim.RWMutex()
    n = gosim.Var("n", 0)
    wg = _wg(2)

    def writer():
        rw.lock()
        n.store(n.load() + 1)
        rw.unlock()
        wg.done()

    def reader():
        rw.rlock()
        n.load()
        rw.runlock()
        wg.done()
    gosim.go(writer)
    gosim.go(reader)
    wg.wait()
    return str(n.load())


@case(ok("1"), mode="race")
def once_orders():
    once = gosim.Once()
    x = gosim.Var("x", 0)
    wg = _wg(2)

    def body():
        once.do(lambda: x.store(1))
        x.load()
        wg.done()
    for _ in range(2):
        gosim.go(body)
    wg.wait()
    return str(x.load())


@case(ok("0"), ok("1"), mode="race")
def chan_len_no_race():
    ch = gosim.Chan(1)
    wg = _wg(1)

    def sender():
        ch.send(1)
        wg.done()
    gosim.go(sender)
    n = len(ch)
    wg.wait()
    return str(n)


@case(ok(), mode="race")
def go_statement_orders():
    x = gosim.Var("x", 0)
    done = gosim.Chan()
    x.store(1)

    def reader():
        x.load()
        done.send(True)
    gosim.go(reader)
    done.recv()


@case(RACE, mode="race")
def write_after_go_statement():
    x = gosim.Var("x", 0)
    done = gosim.Chan()

    def reader():
        x.load()
        done.send(True)
    gosim.go(reader)
    x.store(1)
    done.recv()
