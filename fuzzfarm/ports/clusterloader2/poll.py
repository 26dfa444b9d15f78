"""``wait.Poll(interval, timeout, condition)`` from k8s.io/apimachinery ``pkg/util/wait``.

The condition is first checked one interval after the call, then every interval, until it
holds (returns None) or ``timeout`` has passed (returns ``ERR_WAIT_TIMEOUT``). As in
``WaitFor``, the deadline (the poller closing its channel) still runs the condition one last
time. Upstream the ticks come from a poller goroutine; here the caller selects on a ticker and
a deadline timer itself, which gives the same virtual-time behaviour (a tick and the deadline
due at the same moment are a schedule choice, as in Go).
"""

from __future__ import annotations

from typing import Callable

from fuzzfarm.gosim import go_func, new_ticker, new_timer, recv_case, select
from fuzzfarm.gosim.context import GoError

ERR_WAIT_TIMEOUT = GoError("timed out waiting for the condition")


@go_func("wait.Poll", "wait.go:439")
def poll(interval: float, timeout: float, condition: Callable[[], bool]) -> GoError | None:
    ticker = new_ticker(interval, name="wait.Poll ticker")
    deadline = new_timer(timeout, name="wait.Poll timeout")
    try:
        while True:
            i, _, _ = select(recv_case(ticker.c), recv_case(deadline.c))
            if condition():
                return None
            if i == 1:
                return ERR_WAIT_TIMEOUT
    finally:
        ticker.stop()
        deadline.stop()
