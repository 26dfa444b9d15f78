#!/usr/bin/env python3
"""ff-twomaps (test only): two different unnamed maps raced by different writers, one per
scenario. In both scenarios the raced map is the run's first object (gosim labels it ``map#1``),
so a label-based group would put two unrelated bugs together; what identifies a map across runs
is its creation site: ``newOrders (orders.go:12)`` (a port function declared with go_func) in
scenario 0, ``make_users (twomaps.py:LINE)`` in scenario 1.

Input: the scenario is the last byte (0: orders, 1: users); the rest is the schedule.
"""

from fuzzfarm import gosim
from fuzzfarm.gosim import go_func
from fuzzfarm.harness import ScenarioReader, declare


@go_func("newOrders", "orders.go:10")
def new_orders():
    return gosim.Map()  # :12


def make_users():
    return gosim.Map()


def write_orders_a(m, wg):
    m["a"] = 1
    wg.done()


def write_orders_b(m, wg):
    m["b"] = 1
    wg.done()


def write_users_a(m, wg):
    m["a"] = 1
    wg.done()


def write_users_b(m, wg):
    m["b"] = 1
    wg.done()


def read_scenario(rd: ScenarioReader) -> int:
    return rd.int_in_range(0, 1)


def program(sc: int, variant: str):
    def main():
        m = new_orders() if sc == 0 else make_users()
        wg = gosim.WaitGroup(name="wg")
        wg.add(2)
        writers = (write_orders_a, write_orders_b) if sc == 0 else (write_users_a, write_users_b)
        for w in writers:
            gosim.go(w, m, wg)
        wg.wait()
    return main


harness = declare(__name__, name="ff-twomaps", variants=("buggy",),
                  description="test only: two different maps raced by different writers",
                  decode=read_scenario, program=program)

if __name__ == "__main__":
    harness.fuzz()
