#!/usr/bin/env python3
"""Harness ``checker``: clusterloader2 WaitForControlledPodsRunning, nil cancel in objectChecker.Stop.

Seed bug 1 (kubernetes/perf-tests, buggy 83e45df022ca, fixed by PR #2220 at 19927c1a477e): the
checker goroutine stores its cancel only when it first runs, so an Update/Delete of the same
key (S1, ``CheckerMap.delete_and_stop``), a Delete followed by a re-Add (S2, ``CheckerMap.add``,
the reported stack) or ``dispose`` (S3, ``CheckerMap.dispose``) can stop a checker whose cancel
is still nil. The port lives in ``fuzzfarm.ports.clusterloader2``.

Input layout (``fuzzfarm.harness.ScenarioReader``: ints come from the END of the input, as
atheris ``FuzzedDataProvider`` reads them):

1. scenario: number of object keys (1-3), how many exist in the informer's initial LIST (each
   with replicas and a pods-ready delay), the operation timeout, main's plan (dispose right
   after start / sleep then dispose / gather then dispose / sleep, gather, dispose), main's
   sleep, gather's sync timeout, then 1-8 informer events, each an operation (Add, spec Update,
   status-only Update, Delete, tombstone Delete, re-Add of the same name; any operation on a
   key that does not exist creates it), a key, the gap in virtual seconds since the previous
   event, a replica count and when the pods settle (ready, or gone for a delete; maybe never);
2. schedule: every byte left over, from the FRONT, drives the runtime's bytes strategy (which
   goroutine runs at each scheduling point, whether a timer fires early).

The informer goroutine delivers the events into the measurement's worker queue at their
virtual times, so the informer, the worker W, the checkers C and main M interleave as
upstream. Main always ends with ``dispose`` (clusterloader2 disposes every measurement at the
end of a test), which cancels every checker, stops the informer and joins W, so the leak
check is on: a goroutine still alive 60 virtual seconds after main returns is a real finding.

The operation timeout is never 0: with no deadline and pods that never become ready, gather's
``handling_group.wait()`` never returns (docs/ports/clusterloader2.md#p3c); that would end as a step-limit
failure unrelated to this bug.

Failure kinds: ``buggy`` fails with ``goroutine panic`` (TypeError calling None) at
``ObjectChecker.stop`` <- ``CheckerMap.delete_and_stop`` / ``CheckerMap.add`` /
``CheckerMap.dispose``. ``fixed`` must never hit that. The only other kind our campaigns reach,
on either variant, is the upstream hazard P3(b) (docs/ports/clusterloader2.md#p3b),
``WaitGroup reused before previous Wait returned``: gather's ``handling_group.wait()`` has been released by the last checker's
``done`` when W, handling an event the informer delivered after gather's LIST, starts a checker
(``add(1)``) before M resumes (``FIXED_MAY_FAIL``; the interleaving is spelled out in
``tests/ports/test_clusterloader2.py``).

``FUZZFARM_TOLERATE`` (``;``-separated signatures) makes ``TestOneInput`` report matching
failures on stderr (one ``fuzzfarm: tolerated ...`` line each) instead of raising them, so a long
campaign can run past known findings and still stop at anything else. A signature is a failure
kind, or a kind and its crash state as ``kind at f1 <- f2 <- f3``; e.g. on ``fixed``
``FUZZFARM_TOLERATE="WaitGroup reused before previous Wait returned"``, or on ``buggy``
``FUZZFARM_TOLERATE="goroutine panic at ObjectChecker.stop <- CheckerMap.delete_and_stop <-
WaitForControlledPods.delete_object_locked"`` to look for S2/S3 past S1.
"""

from fuzzfarm.instrument import instrument_imports

with instrument_imports():  # atheris's, with the patched code cached (fuzzfarm/instrument.py)
    from fuzzfarm import gosim
    from fuzzfarm.ports.clusterloader2 import ScriptBuilder, WaitForControlledPods

from fuzzfarm.harness import ScenarioReader, declare

# Failures the fixed variant may legitimately reach (upstream hazards kept by PR #2220), each a
# signature "kind at f1 <- f2 <- f3" (a kind alone would hide a new bug of that kind on fixed).
FIXED_MAY_FAIL = frozenset({
    "WaitGroup reused before previous Wait returned at Group.wait <- WaitForControlledPods.gather <- execute.main",
    # With the detector on (FUZZFARM_RACE=on), two data races of upstream code that PR #2220
    # keeps (docs/ports/clusterloader2.md#shared): P3(b) as Go's WaitGroup annotations report it,
    # and Dispose's unlocked write of isRunning after the worker's read.
    "data race at Group.start <- Group.wait",
    "data race at WaitForControlledPods.dispose <- WaitForControlledPods.handle_object",
    # gather's unlocked read of a checker's duration (wait_for_controlled_pods.go:333) against a
    # checker started past handlingGroup.Wait (P3(b)): upstream's too, kept by PR #2220
    "data race at WaitForControlledPods.gather <- WaitForControlledPods.run_checker",
})
# The detector is off by default: upstream's report is a production crash (no -race), and gosim
# stops at the first race (GORACE=halt_on_error=1), so with it on the isRunning race would end
# most runs before S3 (docs/ports/clusterloader2.md#shared). FUZZFARM_RACE=on turns it on.
RACE = False

OPS = ("add", "update-spec", "update-status", "delete", "delete-tombstone", "re-add")
OPERATION_TIMEOUTS = (60.0, 30.0, 120.0, 300.0)
MAIN_PLANS = ("dispose", "sleep+dispose", "gather+dispose", "sleep+gather+dispose")
MAIN_SLEEPS = (1.0, 10.0, 30.0, 90.0)
SYNC_TIMEOUTS = (60.0, 15.0)
GAPS = (0.0, 1.0, 5.0, 20.0)
READY_AFTER = (0.0, 3.0, 12.0, 40.0, None)  # None: the pods never settle
MAX_EVENTS = 8
MAX_STEPS = 20_000


def _replicas_ready(rd: ScenarioReader):
    return rd.int_in_range(0, 3), rd.pick(READY_AFTER)


def read_scenario(rd: ScenarioReader) -> dict:
    """The scenario, read from the end of the input (the rest is the schedule)."""
    n_keys = rd.int_in_range(1, 3)
    names = [f"obj{i}" for i in range(n_keys)]
    sb = ScriptBuilder()
    for name in names[:rd.int_in_range(0, n_keys)]:
        replicas, ready = _replicas_ready(rd)
        sb.create(name, replicas, ready_after=ready, initial=True)
    scenario = {
        "operation_timeout": rd.pick(OPERATION_TIMEOUTS),
        "plan": rd.pick(MAIN_PLANS),
        "sleep": rd.pick(MAIN_SLEEPS),
        "sync_timeout": rd.pick(SYNC_TIMEOUTS),
    }
    at = 0.0
    for _ in range(rd.int_in_range(1, MAX_EVENTS)):
        op = rd.pick(OPS)
        name = rd.pick(names)
        at += rd.pick(GAPS)
        replicas, ready = _replicas_ready(rd)
        if not sb.exists(name):
            sb.create(name, replicas, at=at, ready_after=ready)
        elif op in ("add", "update-spec"):
            sb.update_spec(name, replicas, at=at, ready_after=ready)
        elif op == "update-status":
            sb.update_status(name, at=at)
        elif op in ("delete", "delete-tombstone"):
            sb.delete(name, at=at, ready_after=ready, tombstone=op == "delete-tombstone")
        else:
            sb.re_add(name, replicas, at=at, ready_after=ready, delete_ready_after=ready)
    scenario["script"] = sb
    return scenario


def describe(sc: dict, variant: str = "") -> str:
    lines = [f"operation_timeout={sc['operation_timeout']:g}s; main: start, "
             + {"dispose": "dispose",
                "sleep+dispose": f"sleep {sc['sleep']:g}s, dispose",
                "gather+dispose": f"gather(sync {sc['sync_timeout']:g}s), dispose",
                "sleep+gather+dispose": f"sleep {sc['sleep']:g}s, gather(sync {sc['sync_timeout']:g}s), dispose",
                }[sc["plan"]]]
    lines += ["  " + line for line in sc["script"].describe()]
    return "\n".join(lines)


def execute(sc: dict, variant: str):
    """Goroutine 1 (named ``execute`` so that crash states keep the frame name ``execute.main``
    they had before the harness used ``declare``): start, maybe sleep and gather, dispose."""
    plan = sc["plan"]

    def main() -> None:
        w = WaitForControlledPods(sc["script"].build(), variant, operation_timeout=sc["operation_timeout"])
        w.start()
        if plan.startswith("sleep"):
            gosim.sleep(sc["sleep"])
        if "gather" in plan:
            w.gather(sc["sync_timeout"])
        w.dispose()

    return main


harness = declare(__name__, name="checker", variants=("buggy", "fixed"),
                  description="clusterloader2 WaitForControlledPodsRunning: nil cancel in objectChecker.Stop "
                              "(perf-tests PR #2220)",
                  decode=read_scenario, program=execute, describe=describe, fixed_may_fail=FIXED_MAY_FAIL,
                  max_steps=MAX_STEPS, check_leaks=True, race=RACE)

if __name__ == "__main__":
    harness.fuzz()
