"""Small gosim programs as data, for the differential test of the search's reduction.

A program is ``{"chans": [cap, ...], "bodies": [main_ops, g1_ops, ...], "target": (slot, value)}``.
Main creates the objects, spawns one goroutine per further body, runs its own ops, waits for
them (``"join": "wg"``: ``WaitGroup.go`` and ``wait``; ``"chan"``: ``go`` and a receive from
each goroutine's own done channel, which orders nothing else), then asserts over what every goroutine observed: it panics when the
observation at ``slot`` (all observations in goroutine order, flattened) equals ``value``
(``slot`` ``"all"``: when the observations, as a tuple per goroutine, equal ``value``).

Ops (tuples, so a shrunk counterexample can be pasted into a regression test):

* ``("crit", mu, ops)`` / ``("rcrit", ops)`` / ``("wcrit", ops)``: ops under a Mutex (0 or 1) or
  the RWMutex (read or write side);
* ``("send", c, v)``, ``("recv", c)``, ``("trysend", c, v)``, ``("tryrecv", c)`` (select with
  default), ``("len", c)``, ``("sel", c1, c2)`` (receive from c1 or send on c2, with default);
* ``("mset", k, v)``, ``("mget", k)``, ``("mlen",)``, ``("msnap",)``, ``("miter",)`` on one Map;
* ``("add", d)``, ``("load",)``, ``("cas", old, new)`` on an atomic Int64;
* ``("vload",)``, ``("vstore", v)`` on a ``Var``;
* ``("sleep", d)``, ``("after", d)`` (receive from ``time.After``), ``("tstop", d)`` (arm a timer,
  then stop it: did it fire first?), ``("gosched",)``;
* in main only, ``("go", i)``: start goroutine ``i`` there (bodies main does not start this way
  are started before main's first op).

Every op that reads something appends what it saw to its goroutine's own list; only main reads
the lists, after ``wg.wait()`` (race-free). :class:`ProgramHarness` is a harness module for
``explore`` (``NAME``, ``VARIANTS``, ``execute``) that also records each finished run's outcome.
"""

from __future__ import annotations

from fuzzfarm import gosim
from fuzzfarm.harness import execute_scenario


def _run_ops(res, ops, obs):
    for op in ops:
        _op(res, op, obs)


def _op(res, op, obs):
    kind = op[0]
    chans = res["chans"]
    if kind == "crit":
        with res["mu"][op[1]]:
            _run_ops(res, op[2], obs)
    elif kind == "rcrit":
        with res["rw"].rlocker():
            _run_ops(res, op[1], obs)
    elif kind == "wcrit":
        with res["rw"]:
            _run_ops(res, op[1], obs)
    elif kind == "send":
        chans[op[1]].send(op[2])
    elif kind == "recv":
        obs.append(chans[op[1]].recv())
    elif kind == "trysend":
        i, _, _ = gosim.select(gosim.send_case(chans[op[1]], op[2]), default=True)
        obs.append(i)
    elif kind == "tryrecv":
        i, v, _ = gosim.select(gosim.recv_case(chans[op[1]]), default=True)
        obs.append((i, v))
    elif kind == "len":
        obs.append(len(chans[op[1]]))
    elif kind == "sel":
        i, v, _ = gosim.select(gosim.recv_case(chans[op[1]]), gosim.send_case(chans[op[2]], 9), default=True)
        obs.append((i, v))
    elif kind == "mset":
        res["m"][op[1]] = op[2]
    elif kind == "mget":
        obs.append(res["m"].get(op[1]))
    elif kind == "mlen":
        obs.append(len(res["m"]))
    elif kind == "msnap":
        obs.append(tuple(sorted(res["m"].snapshot().items())))
    elif kind == "miter":
        obs.append(tuple(k for k in res["m"].keys()))
    elif kind == "add":
        obs.append(res["a"].add(op[1]))
    elif kind == "load":
        obs.append(res["a"].load())
    elif kind == "cas":
        obs.append(res["a"].compare_and_swap(op[1], op[2]))
    elif kind == "vload":
        obs.append(res["v"].load())
    elif kind == "vstore":
        res["v"].store(op[1])
    elif kind == "sleep":
        gosim.sleep(op[1])
    elif kind == "after":
        obs.append(gosim.after(op[1]).recv())
    elif kind == "tstop":
        obs.append(gosim.new_timer(op[1]).stop())
    elif kind == "gosched":
        gosim.gosched()
    elif kind == "go":  # main only: start goroutine op[1] here
        _start(res, op[1])
    else:
        raise ValueError(f"unknown op {op!r}")


def _start(res, i: int) -> None:
    """Start goroutine ``i``, joined by the WaitGroup or by its own done channel."""
    body, obs = res["bodies"][i], res["obs"][i]
    if res["join"] == "wg":
        res["wg"].go(_run_ops, res, body, obs)
        return
    done = res["done"][i]

    def run():
        _run_ops(res, body, obs)
        done.send(None)

    gosim.go(run, name=f"g{i}")


def _gids(gs) -> tuple:
    return tuple(g.gid for g in gs)


def state_of(res: dict) -> tuple:
    """Everything a goroutine of the program could still see or do, as a value: each
    goroutine's state, position (points passed) and observations; every object's contents and
    queues; the timers, the clock and the scheduler's history that decides early firings. Two runs the reduction calls equivalent must give the
    same value here."""
    rt = res["rt"]
    obs = getattr(rt.strategy, "observer", None)
    points = tuple(sorted(obs.points.items())) if obs is not None else ()
    rw = res["rw"]
    return (
        tuple((g.gid, g.state, g.wait) for g in rt.goroutines), points,
        # what decides whether a timer may fire early (a blocked goroutine's is reset when woken)
        rt.early_fires, tuple((g.gid, g.ran_at, g.early_mark) for g in rt.runnable),
        rt.max_starvation_s, getattr(rt, "lift_one_in", 0),
        tuple(tuple(o) for o in res["obs"]),
        tuple((tuple(c.buf), c.closed, tuple((w.g.gid, w.sel is not None and w.sel.fired) for w in c.recvq),
               tuple((w.g.gid, w.value, w.sel is not None and w.sel.fired) for w in c.sendq)) for c in res["chans"]),
        tuple(sorted(res["m"].d.items())), res["m"].writing, res["a"].v, res["v"].value,
        tuple((mu.locked, _gids(mu.waiters)) for mu in res["mu"]),
        (rw.readers, rw.writer, rw.wslot, rw.pending, _gids(rw.rwaiters), _gids(rw.wwaiters)),
        (res["wg"].counter, _gids(res["wg"].waiters)) if "wg" in res else None,
        tuple(sorted((t.when, t.seq, t.label) for t in rt.timers)), rt.now,
    )


def build(prog: dict, outcomes: list | None = None, holder: dict | None = None):
    """The main function running ``prog``; appends the observations of a run that reaches the
    final assertion to ``outcomes``; ``holder["res"]`` is the run's objects (for ``state_of``)."""

    def main():
        res = {
            "rt": gosim.current_runtime(),
            "mu": [gosim.Mutex(name="mu0"), gosim.Mutex(name="mu1")],
            "rw": gosim.RWMutex(name="rw"),
            "chans": [gosim.Chan(c, name=f"c{i}") for i, c in enumerate(prog["chans"])],
            "m": gosim.Map(name="m"),
            "a": gosim.atomic.Int64(0, name="a"),
            "v": gosim.Var("v", 0),
            "obs": [[] for _ in prog["bodies"]],
        }
        if holder is not None:
            holder["res"] = res
        wg = res["wg"] = gosim.WaitGroup(name="wg")
        bodies = res["bodies"] = prog["bodies"]
        obs = res["obs"]
        res["join"] = prog.get("join", "wg")
        res["done"] = [gosim.Chan(1, name=f"done{i}") for i in range(len(bodies))]
        started = {op[1] for op in bodies[0] if op[0] == "go"}
        for i in range(1, len(bodies)):  # goroutines main's body does not start itself start first
            if i not in started:
                _start(res, i)
        _run_ops(res, bodies[0], obs[0])
        if res["join"] == "wg":
            wg.wait()
        else:
            for i in range(1, len(bodies)):
                res["done"][i].recv()
        seen = tuple(tuple(o) for o in obs)
        if outcomes is not None:
            outcomes.append(seen)
        flat = [x for o in seen for x in o]
        slot, value = prog.get("target") or (None, None)
        if slot == "all":  # the assertion forbids one whole outcome
            if seen == value:
                raise AssertionError(f"observed {seen!r}")
        elif slot is not None and slot < len(flat) and flat[slot] == value:
            raise AssertionError(f"observed {value!r} at {slot}: {seen!r}")

    return main


class ProgramHarness:
    """A harness module for ``explore`` running one program (variant ``p``, data = schedule).

    ``outcomes`` collects, per run that was not cut, what it ended in: ``("ok", observations)``
    or ``("fail", kind, observations or None)``."""

    VARIANTS = ("p",)
    DESCRIPTION = "a generated program"

    def __init__(self, prog: dict, name: str = "reducer-program"):
        self.NAME = name
        self.prog = prog
        self.outcomes: set = set()
        self.current: dict = {}

    def state(self) -> tuple:
        """:func:`state_of` the run in progress."""
        return state_of(self.current["res"])

    def execute(self, data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False):
        seen: list = []
        self.current = {}
        ex = execute_scenario(build(self.prog, seen, self.current), data, 0, "program", trace=trace, log_schedule=log_schedule,
                              max_steps=2000)
        f = ex.report.failure
        obs = seen[0] if seen else None
        self.outcomes.add(("ok", obs) if f is None else ("fail", f.kind, obs))
        return ex
