"""Random small Go programs as data, and their interpreter (for the determinism tests).

A program is a list of goroutine bodies (the first is main); a body is a list of ops over
shared resources: two mutexes, an RWMutex, three channels (unbuffered, buffered, nil), a map
with string keys, a WaitGroup, a context with a timeout, tickers and timers. Programs may
fail in any way the runtime reports (deadlock, leak, map races, closes, panics): determinism
must hold for failing runs too.
"""

from __future__ import annotations

import json
import random

from fuzzfarm import gosim

KEYS = ("alpha", "beta", "gamma", "kube-system", "default")
OPS = ("lock", "rlock", "send", "recv", "select", "select_default", "close", "mapset", "mapget",
       "mapdel", "iter", "sleep", "gosched", "wg_done", "wg_wait", "cancel", "ctx_wait", "timer",
       "ticker", "go", "panic")


def random_program(rng: random.Random, max_goroutines: int = 4, max_ops: int = 8) -> list:
    """A program from ``rng`` (the same ``rng`` state gives the same program in every process)."""
    prog = []
    for _ in range(rng.randint(1, max_goroutines)):
        body = []
        for _ in range(rng.randint(0, max_ops)):
            op = rng.choice(OPS)
            body.append([op, rng.randrange(3), rng.choice(KEYS), rng.choice((0.5, 1.0, 2.5))])
        prog.append(body)
    return prog


def build(prog: list):
    """The main function that runs ``prog``."""

    def main():
        res = {
            "mu": [gosim.Mutex("mu0"), gosim.Mutex("mu1")],
            "rw": gosim.RWMutex("rw"),
            "ch": [gosim.Chan(0, "c0"), gosim.Chan(1, "c1"), None],
            "m": gosim.Map({"alpha": 0}, name="m"),
            "wg": gosim.WaitGroup("wg"),
        }
        res["ctx"], res["cancel"] = gosim.with_timeout(gosim.background(), 3.0)
        res["wg"].add(len(prog) - 1)
        for body in prog[1:]:
            gosim.go(_body, res, body, True)
        _body(res, prog[0], False)

    return main


def _body(res, body, counted):
    try:
        for op, i, key, d in body:
            _op(res, op, i, key, d)
    finally:
        if counted:
            res["wg"].done()


def _op(res, op, i, key, d):
    ch = res["ch"][i]
    if op == "lock":
        with res["mu"][i % 2]:
            res["m"][key] = i
    elif op == "rlock":
        with res["rw"].rlocker():
            gosim.gosched()
    elif op == "send":
        gosim.send(ch, key) if ch is None else gosim.select(gosim.send_case(ch, key), gosim.recv_case(gosim.after(d)))
    elif op == "recv":
        gosim.select(gosim.recv_case(ch), gosim.recv_case(res["ctx"].done()))
    elif op == "select":
        gosim.select(gosim.recv_case(res["ch"][0]), gosim.recv_case(res["ch"][1]), gosim.recv_case(gosim.after(d)))
    elif op == "select_default":
        gosim.select(gosim.recv_case(res["ch"][1]), gosim.send_case(res["ch"][1], key), default=True)
    elif op == "close":
        if i == 1:
            gosim.close(ch)
    elif op == "mapset":
        res["m"][key] = d
    elif op == "mapget":
        res["m"].get(key)
    elif op == "mapdel":
        del res["m"][key]
    elif op == "iter":
        for _ in res["m"].items():
            pass
    elif op == "sleep":
        gosim.sleep(d)
    elif op == "gosched":
        gosim.gosched()
    elif op == "wg_done":
        if i == 0:
            res["wg"].add(1)
            gosim.go(res["wg"].done)
    elif op == "wg_wait":
        if i == 0:
            res["wg"].wait()
    elif op == "cancel":
        res["cancel"]()
    elif op == "ctx_wait":
        res["ctx"].done().recv()
    elif op == "timer":
        t = gosim.new_timer(d)
        if i == 0:
            t.stop()
        else:
            gosim.after_func(d, lambda: res["m"].get(key))
    elif op == "ticker":
        tk = gosim.new_ticker(d)
        tk.c.recv()
        tk.stop()
    elif op == "go":
        gosim.go(gosim.sleep, d)
    elif op == "panic":
        if i == 2:
            raise KeyError(key)


def run_json(prog: list, strategy, trace: bool = True) -> str:
    """The run of ``prog`` under ``strategy`` as canonical JSON (decisions, trace, failure)."""
    rep = gosim.run(build(prog), strategy=strategy, trace=trace, max_steps=3000)
    return json.dumps(rep.to_json(), sort_keys=True)
