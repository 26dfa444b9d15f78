"""What ``runtime_bench.py`` measures, in a module of its own so that the atheris mode can
import it (and the runtime) inside ``atheris.instrument_imports()``.

* ``runtime_scenario(n, k)``: n goroutines (main + n-1 spawned), each calling ``gosched()``
  k times, on the real runtime under ``BytesStrategy``.
* ``limit_run(n, k, data)``: the practical limit -- the same n greenlets doing the same k
  yields each, scheduled by the smallest possible scheduler: a list of runnable greenlets,
  the next one picked from the input bytes, a switch. Nothing else.
"""

from __future__ import annotations

from greenlet import greenlet

from fuzzfarm import gosim
from fuzzfarm.strategies import BytesStrategy


def runtime_scenario(n: int, k: int):
    def worker():
        for _ in range(k):
            gosim.gosched()

    def main():
        for _ in range(n - 1):
            gosim.go(worker)
        worker()

    return main


def runtime_run(main, data: bytes) -> int:
    """One run; returns the number of scheduling decisions it took."""
    rep = gosim.run(main, strategy=BytesStrategy(data))
    if rep.failure is not None:
        raise RuntimeError(rep.failure.render())
    return len(rep.decisions)


def limit_run(n: int, k: int, data: bytes) -> int:
    """One run of the minimal scheduler; returns the number of picks (decisions) it made."""
    runnable: list = []
    st = [0, None]  # position in data, current greenlet
    size = len(data)

    def yield_point():
        pos = st[0]
        st[0] = pos + 1
        nxt = runnable[data[pos % size] % len(runnable)]
        if nxt is not st[1]:
            st[1] = nxt
            nxt.switch()

    def body():
        for _ in range(k):
            yield_point()
        runnable.remove(st[1])

    root = greenlet.getcurrent()
    for _ in range(n):
        runnable.append(greenlet(body, root))
    while runnable:
        pos = st[0]
        st[0] = pos + 1
        nxt = st[1] = runnable[data[pos % size] % len(runnable)]
        nxt.switch()
    return st[0]
