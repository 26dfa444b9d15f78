"""Programs that made the reduction prove a false "proven" (issue 29; never registered).

Each variant: main spawns a writer, reads shared state under a mutex the writer never takes,
spawns a bystander, and panics when it saw the writer's effect. The failing schedule needs one
preemption (switch to the writer before main's read). The read has no scheduling point of its
own, so only a footprint on the state it reads keeps the reduction from calling the writer's
step and main's read commuting.

* ``len_chan``: the writer sends on a ``Chan(1)``; main reads ``len(ch)`` (legal Go: no race).
* ``len_map``: the writer sets a key of a ``Map``; main reads ``len(m)`` (a data race in Go).
* ``snapshot``: the same with ``m.snapshot()``.
* ``closure``: the writer sets a closure variable (a data race in Go, invisible to gosim).
* ``timer_early``: no writer goroutine; a timer armed for 0.05 s is the writer, and main polls
  its channel (select with default). The failing schedule fires the timer early (one
  preemption); only the firing's footprint tells that run from the one where it did not fire.
* ``select_choice``: no writer; main selects between two ready channels and panics when the
  second case wins (a free data choice: no preemption). Only the choice, folded into the
  fingerprint, tells the two runs apart.
* ``range_start``: likewise, main ranges over a two-key Map and panics when the iteration
  starts at the second key (Go randomizes the start; here it is a schedule decision).
"""

from fuzzfarm import gosim
from fuzzfarm.harness import execute_scenario

NAME = "reduction-probes"
VARIANTS = ("len_chan", "len_map", "snapshot", "closure", "timer_early", "select_choice", "range_start")
DESCRIPTION = "false-proof probes for the dfs reduction"


def _main(variant: str):
    if variant == "timer_early":
        return _timer_main
    if variant in ("select_choice", "range_start"):
        return lambda: _choice_main(variant)

    def main():
        mu = gosim.Mutex(name="unrelated.mu")
        ch = gosim.Chan(1, name="ch")
        m = gosim.Map(name="m")
        box = [0]

        def writer():
            if variant == "len_chan":
                ch.send(1)
            elif variant == "closure":
                box[0] = 1
            else:
                m["k"] = 1

        gosim.go(writer, name="writer")
        mu.lock()
        if variant == "len_chan":
            n = len(ch)
        elif variant == "len_map":
            n = len(m)
        elif variant == "snapshot":
            n = len(m.snapshot())
        else:
            n = box[0]
        mu.unlock()
        gosim.go(lambda: None, name="bystander")
        if n == 1:
            raise AssertionError(f"{variant}: saw the writer's effect")

    return main


def _timer_main():
    mu = gosim.Mutex(name="unrelated.mu")
    t = gosim.new_timer(0.05, name="t")  # within the starvation bound (0.1 s): may fire early
    gosim.go(lambda: None, name="bystander1")
    mu.lock()
    i, _, _ = gosim.select(gosim.recv_case(t.c), default=True)
    mu.unlock()
    gosim.go(lambda: None, name="bystander2")
    t.stop()
    if i == 0:
        raise AssertionError("timer_early: the timer fired before main polled it")


def _choice_main(variant: str):
    mu = gosim.Mutex(name="unrelated.mu")
    a, b = gosim.Chan(1, name="a"), gosim.Chan(1, name="b")
    m = gosim.Map({"a": 1, "b": 2}, name="m")
    a.send(1)
    b.send(2)
    gosim.go(lambda: None, name="bystander1")
    mu.lock()
    if variant == "select_choice":
        second = gosim.select(gosim.recv_case(a), gosim.recv_case(b))[0] == 1
    else:
        second = next(iter(m.keys())) == "b"
    mu.unlock()
    gosim.go(lambda: None, name="bystander2")
    if second:
        raise AssertionError(f"{variant}: the second option was taken")


def execute(data: bytes, variant: str, *, trace: bool = False, log_schedule: bool = False):
    return execute_scenario(_main(variant), data, 0, variant, trace=trace, log_schedule=log_schedule)


def TestOneInput(data: bytes) -> None:
    execute(data, "len_chan").report.raise_failure()
