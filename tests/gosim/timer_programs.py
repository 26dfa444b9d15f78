"""Correct Go programs with periodic timer-driven work, and a real livelock (for the
progress-preserving timing tests).

``ticker_with_slow_handler``: main does its own work (80 lock/unlock pairs) while a
background goroutine receives a tick every virtual second and hands each tick to a new
goroutine whose handling takes ~60 scheduling decisions. In Go main finishes in microseconds,
long before a second tick; it then stops the ticker and waits for the handlers. A schedule that
fires the ticker early over and over piles up handler goroutines faster than they drain and
starves main: that starvation is the schedule's, never the program's failure.

``spinning_pair``: two goroutines that each wait, spinning with Gosched, for the other to move
first. It never finishes in Go either: a real livelock, which must still be reported.
"""

from __future__ import annotations

from fuzzfarm import gosim


def ticker_with_slow_handler(main_work: int = 80, handler_work: int = 30):
    def main():
        mu = gosim.Mutex("mu")
        wg = gosim.WaitGroup("handlers")
        stop = gosim.Chan(0, "stop")
        done = gosim.Chan(0, "loop done")
        ticker = gosim.new_ticker(1.0, name="ticker")
        state = {"n": 0}

        def handle():
            for _ in range(handler_work):
                mu.lock()
                state["n"] += 1
                mu.unlock()
            wg.done()

        def loop():
            while True:
                i, _, _ = gosim.select(gosim.recv_case(ticker.c), gosim.recv_case(stop))
                if i == 1:
                    ticker.stop()
                    done.send(None)
                    return
                wg.add(1)
                gosim.go(handle, name="handle")

        gosim.go(loop, name="tick loop")
        for _ in range(main_work):
            mu.lock()
            state["n"] += 1
            mu.unlock()
        stop.send(None)
        done.recv()
        wg.wait()

    return main


def spinning_pair():
    def main():
        flags = {"a": False, "b": False}

        def side(me, other):
            while not flags[other]:  # each waits for the other to go first: no one ever does
                gosim.gosched()
            flags[me] = True

        gosim.go(side, "a", "b", name="a")
        side("b", "a")

    return main
