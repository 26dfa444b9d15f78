"""The stress baseline (``gosim.threaded``) reports a hang as a hang: when the wall-clock
timeout ends a run, threads unwind through their deferred unlocks, and a ``defer Unlock()``
after a ``Cond.Wait`` that never returned must not turn the hang into "unlock of unlocked
mutex" (it did, and ``benchmarks/hard_cases.py`` then counted HC-19's deadlocks as another
failure)."""

from fuzzfarm import gosim
from fuzzfarm.gosim.threaded import run_threaded


def _waits_forever_under_defer():
    mu = gosim.Mutex("mu")
    cond = gosim.Cond(mu, name="cond")
    mu.lock()
    try:
        cond.wait()  # nobody signals
    finally:
        mu.unlock()  # defer mu.Unlock()


def test_hang_with_deferred_unlock_after_wait_is_a_deadlock():
    r = run_threaded(_waits_forever_under_defer, seed=1, time_scale=1e-4, wall_timeout_s=0.3)
    assert r.failure is not None and r.failure.kind == "deadlock", r.failure
